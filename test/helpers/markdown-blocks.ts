import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** One fenced code block of a Markdown file. */
export interface CodeBlock {
  /** The Markdown file, relative to the repository root (`docs/guides/embedding.md`). */
  file: string;
  /** The 1-based line of the opening fence. */
  line: number;
  /** The fence's info string split on spaces: `['ts', 'fragment', ...]`. */
  info: string[];
  code: string;
}

/** The Markdown files whose code blocks and links the docs tests check. */
export function docFiles(root: string): string[] {
  const under = (dir: string): string[] =>
    readdirSync(join(root, dir), { withFileTypes: true })
      .flatMap((entry) =>
        entry.isDirectory()
          ? under(join(dir, entry.name))
          : entry.name.endsWith('.md')
            ? [join(dir, entry.name)]
            : [],
      )
      .sort();
  return ['README.md', 'CONTRIBUTING.md', 'bench/README.md', ...under('docs')];
}

/** The fenced blocks (```` ``` ```` or `~~~`) of one Markdown text, in order. */
export function codeBlocks(file: string, text: string): CodeBlock[] {
  const blocks: CodeBlock[] = [];
  const lines = text.split('\n');
  let open: { fence: string; line: number; info: string[]; body: string[] } | undefined;
  for (const [index, raw] of lines.entries()) {
    const line = raw.trimStart();
    if (open === undefined) {
      const start = /^(`{3,}|~{3,})\s*(.*)$/.exec(line);
      if (start) {
        open = {
          fence: start[1]!,
          line: index + 1,
          info: start[2]!.trim().split(/\s+/).filter(Boolean),
          body: [],
        };
      }
      continue;
    }
    if (line.startsWith(open.fence) && line.slice(open.fence.length).trim() === '') {
      blocks.push({ file, line: open.line, info: open.info, code: open.body.join('\n') });
      open = undefined;
      continue;
    }
    // A block indented under a list item: drop the list's indentation.
    const indent = lines[open.line - 1]!.length - lines[open.line - 1]!.trimStart().length;
    open.body.push(raw.slice(Math.min(indent, raw.length - raw.trimStart().length)));
  }
  if (open) throw new Error(`${file}:${open.line}: a code fence is never closed`);
  return blocks;
}

/** The TypeScript blocks of a Markdown file (`ts` or `typescript`). */
export function typeScriptBlocks(file: string, text: string): CodeBlock[] {
  return codeBlocks(file, text).filter((b) => b.info[0] === 'ts' || b.info[0] === 'typescript');
}

/** Reads a Markdown file of the repository. */
export function readDoc(root: string, file: string): string {
  return readFileSync(join(root, file), 'utf8');
}
