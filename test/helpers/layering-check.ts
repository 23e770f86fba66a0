import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

/**
 * The folders of `src/`, lowest first. A folder may import only folders of a lower layer: no
 * import goes up or sideways (to another folder of its own layer), type imports included. A
 * sub-folder is a folder of its own (`persistence/postgres` sits above `persistence`); `.` is
 * the package's entry files (`src/*.ts`). CONTRIBUTING.md explains each layer.
 */
export const LAYERS: readonly (readonly string[])[] = [
  ['errors'],
  ['items'],
  ['validation'],
  ['core'],
  ['models'],
  ['tools', 'context-window', 'guardrails'],
  ['machines/schemas'],
  ['machines'],
  ['telemetry', 'mcp'],
  ['persistence'],
  ['persistence/capabilities'],
  ['persistence/entries'],
  ['persistence/kv/backends', 'persistence/postgres/notifications'],
  ['persistence/kv', 'persistence/postgres'],
  ['actors'],
  ['runs'],
  ['audit'],
  ['definition'],
  ['session-host'],
  ['actions'],
  ['approvals', 'recovery'],
  ['sessions'],
  ['agent'],
  ['testing'],
  ['store-contract'],
  ['http'],
  ['inspect/session-list'],
  ['inspect/page/browser'],
  ['inspect/page/browser/charts', 'inspect/page/browser/trace'],
  ['inspect/page/browser/app'],
  ['inspect/page', 'inspect/page/bundle'],
  ['inspect'],
  ['cli/shared'],
  ['cli/commands'],
  ['cli'],
  ['.'],
];

/** One import of one source file: the importing file and folder, and the folder it reaches. */
export interface FolderImport {
  file: string;
  from: string;
  to: string;
  specifier: string;
}

export interface LayeringProblems {
  /** Folders under the source root that no layer lists. */
  unlisted: string[];
  /** Imports of a folder of a higher layer. */
  upward: string[];
  /** Imports of another folder of the same layer. */
  sideways: string[];
  /** Cycles between folders, each as `a -> b -> a`. */
  cycles: string[];
}

export function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Every module specifier a file imports or re-exports, type-only ones included. */
export function specifiers(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const found: string[] = [];
  const patterns = [
    /^\s*(?:import|export)\b[^'"]*?\bfrom\s*['"]([^'"]+)['"]/gm,
    /^\s*import\s*['"]([^'"]+)['"]/gm,
    /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
  ];
  for (const pattern of patterns) {
    for (const match of text.matchAll(pattern)) found.push(match[1]!);
  }
  return found;
}

const posix = (path: string) => path.split(sep).join('/');

/** The folder of a file under `root`, as the layers name it (`.` for the entry files). */
export function folderOf(root: string, file: string): string {
  const folder = posix(relative(root, dirname(file)));
  return folder === '' ? '.' : folder;
}

/** Every relative import under `root` that crosses from one folder into another. */
export function folderImports(root: string): FolderImport[] {
  return sourceFiles(root).flatMap((file) =>
    specifiers(file)
      .filter((specifier) => specifier.startsWith('.'))
      .map((specifier) => ({
        file: posix(relative(root, file)),
        from: folderOf(root, file),
        to: folderOf(root, resolve(dirname(file), specifier)),
        specifier,
      }))
      .filter((i) => i.from !== i.to),
  );
}

/** The cycles of a directed graph (its strongly connected components of two or more nodes). */
function cyclesOf(edges: Map<string, Set<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    onStack.add(node);
    for (const next of edges.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, index.get(next)!));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1) found.push(component.sort());
  };
  for (const node of [...edges.keys()].sort()) if (!index.has(node)) visit(node);
  return found;
}

/** A shortest path from `start` back to itself inside `members`, as `a -> b -> a`. */
function cyclePath(edges: Map<string, Set<string>>, members: string[]): string {
  const inside = new Set(members);
  const start = members[0]!;
  const previous = new Map<string, string>();
  const queue = [start];
  while (queue.length) {
    const node = queue.shift()!;
    for (const next of [...(edges.get(node) ?? [])].sort()) {
      if (!inside.has(next)) continue;
      if (next === start) {
        const path = [node];
        while (path[0] !== start) path.unshift(previous.get(path[0]!)!);
        return [...path, start].join(' -> ');
      }
      if (!previous.has(next)) {
        previous.set(next, node);
        queue.push(next);
      }
    }
  }
  return members.join(' <-> ');
}

/** What breaks the layering of the source tree at `root` under `layers`. */
export function layeringProblems(
  root: string,
  layers: readonly (readonly string[])[] = LAYERS,
): LayeringProblems {
  const level = new Map(layers.flatMap((folders, i) => folders.map((f) => [f, i] as const)));
  const imports = folderImports(root);
  const folders = new Set(sourceFiles(root).map((f) => folderOf(root, f)));
  const edges = new Map<string, Set<string>>();
  const upward: string[] = [];
  const sideways: string[] = [];
  for (const i of imports) {
    (edges.get(i.from) ?? edges.set(i.from, new Set()).get(i.from)!).add(i.to);
    const from = level.get(i.from);
    const to = level.get(i.to);
    if (from === undefined || to === undefined) continue;
    const line = `${i.file} -> ${i.specifier} (${i.from} imports ${i.to})`;
    if (to > from) upward.push(line);
    else if (to === from) sideways.push(line);
  }
  return {
    unlisted: [...folders].filter((f) => !level.has(f)).sort(),
    upward,
    sideways,
    cycles: cyclesOf(edges).map((members) => cyclePath(edges, members)),
  };
}
