import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import ts from 'typescript';

/** A snippet to type-check as a module of its own, by a name used in the failure message. */
export interface Snippet {
  name: string;
  code: string;
}

/**
 * Type-checks snippets (the docs' TypeScript blocks) as ES modules with the project's own
 * compiler options (tsconfig.json: strict, noUncheckedIndexedAccess, ...), `agentstate-runtime` and
 * its subpaths resolved to the entry files under `src/` (`agentstate-runtime` -> src/index.ts,
 * `agentstate-runtime/<name>` -> src/<name>.ts), so the docs are checked against the code, not a
 * build. `globals` is a declaration file (a script) every snippet sees: the few names the
 * docs use without defining them. Returns each snippet's diagnostics, formatted.
 */
export function typeCheckSnippets(
  root: string,
  snippets: readonly Snippet[],
  globals: string,
): Map<string, string[]> {
  const dir = join(root, '.docs-check');
  const files = new Map<string, string>();
  const byFile = new Map<string, string>();
  files.set(join(dir, 'globals.d.ts'), globals);
  for (const [index, snippet] of snippets.entries()) {
    const file = join(dir, `block-${index}.mts`);
    // `export {}` makes a block without imports a module, so its names stay its own.
    files.set(file, `${snippet.code}\nexport {};\n`);
    byFile.set(file, snippet.name);
  }

  const options = projectOptions(root);
  const host = hostWith(options, files);

  const program = ts.createProgram({ rootNames: [...files.keys()], options, host });
  const result = new Map<string, string[]>();
  for (const [file, name] of byFile) result.set(name, fileDiagnostics(program, file, name));
  const globalsSource = program.getSourceFile(join(dir, 'globals.d.ts'));
  const globalErrors = globalsSource ? program.getSemanticDiagnostics(globalsSource) : [];
  if (globalErrors.length > 0) {
    throw new Error(
      `the docs' globals do not type-check: ${globalErrors
        .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'))
        .join('; ')}`,
    );
  }
  return result;
}

/**
 * The project's compiler options (tsconfig.json: strict, noUncheckedIndexedAccess, ...), with no
 * output, `agentstate-runtime` and its subpaths resolved to the entry files under `src/`.
 */
function projectOptions(root: string): ts.CompilerOptions {
  const configPath = join(root, 'tsconfig.json');
  const raw = ts.readConfigFile(configPath, (p) => ts.sys.readFile(p));
  if (raw.error) throw new Error(ts.flattenDiagnosticMessageText(raw.error.messageText, '\n'));
  const config = raw.config as { compilerOptions: Record<string, unknown> };
  config.compilerOptions = {
    ...config.compilerOptions,
    noEmit: true,
    declaration: false,
    sourceMap: false,
    paths: { 'agentstate-runtime': ['./src/index.ts'], 'agentstate-runtime/*': ['./src/*.ts'] },
  };
  return ts.parseJsonConfigFileContent(config, ts.sys, root, undefined, configPath).options;
}

/** A compiler host that reads `files` (absolute path -> text) from memory, the rest from disk. */
function hostWith(
  options: ts.CompilerOptions,
  files: ReadonlyMap<string, string>,
): ts.CompilerHost {
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, languageVersion, onError, shouldCreate) => {
    const text = files.get(fileName);
    if (text !== undefined) return ts.createSourceFile(fileName, text, languageVersion, true);
    return getSourceFile(fileName, languageVersion, onError, shouldCreate);
  };
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (fileName) => files.has(fileName) || fileExists(fileName);
  const readFile = host.readFile.bind(host);
  host.readFile = (fileName) => files.get(fileName) ?? readFile(fileName);
  return host;
}

/** A file's syntax and type errors, each as `line N: message`. */
function fileDiagnostics(program: ts.Program, file: string, name: string): string[] {
  const source = program.getSourceFile(file);
  if (!source) throw new Error(`TypeScript did not load ${name}`);
  const diagnostics = [
    ...program.getSyntacticDiagnostics(source),
    ...program.getSemanticDiagnostics(source),
  ];
  return diagnostics.map((d) => {
    const at =
      d.start === undefined
        ? ''
        : `line ${source.getLineAndCharacterOfPosition(d.start).line + 1}: `;
    return `${at}${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
  });
}

/** One change of a project file's text: `find` (which must occur exactly once) -> `replace`. */
export interface SourceEdit {
  file: string;
  find: string;
  replace: string;
}

/**
 * Type-checks the project files `files` (paths under `root`) once per set of `edits`, as the
 * compiler would with those edits applied to files' text in memory (the files on disk stay as
 * they are), and returns their errors for each set. The checks share what did not change (each
 * program reuses the previous one's unchanged files). An edit whose `find` does not occur
 * exactly once throws: the check would prove nothing.
 */
export function typeCheckEdited(
  root: string,
  files: readonly string[],
  editSets: readonly (readonly SourceEdit[])[],
): string[][] {
  const options = projectOptions(root);
  const paths = files.map((file) => resolve(root, file));
  let previous: ts.Program | undefined;
  return editSets.map((edits) => {
    const edited = new Map<string, string>();
    for (const edit of edits) {
      const at = resolve(root, edit.file);
      const text = edited.get(at) ?? readFileSync(at, 'utf8');
      if (text.split(edit.find).length !== 2) {
        throw new Error(`${edit.file} does not hold ${JSON.stringify(edit.find)} exactly once`);
      }
      edited.set(at, text.replace(edit.find, edit.replace));
    }
    const host = hostWith(options, edited);
    const program = ts.createProgram({ rootNames: paths, options, host, oldProgram: previous });
    previous = program;
    return paths.flatMap((path, i) => fileDiagnostics(program, path, files[i] ?? path));
  });
}
