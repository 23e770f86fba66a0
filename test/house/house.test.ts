import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import {
  LONG_MARKER,
  MAX_FILE_LINES,
  MAX_FOLDER_FILES,
  MAX_FOLDER_LINES,
  folderSizeWarnings,
  folderSizes,
  houseProblems,
  lineCount,
  longReason,
} from '../helpers/house-check.js';

/**
 * The house rules on size (see `test/helpers/house-check.ts` for the rules and the
 * `Long on purpose:` marker): no file above 300 lines without a reason written at its top
 * (a failure), and a warning for each folder of `src/` whose whole subtree passes 25 `.ts`
 * files or 2,500 lines (printed, not failed).
 */

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const src = join(root, 'src');

const fileOf = (problem: string) => problem.slice(0, problem.indexOf(':'));

describe('the house', () => {
  it('warns, without failing, about each folder whose whole subtree passes 25 .ts files or 2,500 lines', () => {
    const sizes = folderSizes(src);
    // Every folder is measured with all it holds: the root's subtree is every file of src/.
    const all = (readdirSync(src, { recursive: true }) as string[]).filter((f) =>
      f.endsWith('.ts'),
    );
    expect(sizes.get('.')?.files).toBe(all.length);
    const folders = new Set(all.map((f) => dirname(f).split(sep).join('/')));
    expect([...sizes.keys()].filter((f) => f !== '.').sort()).toEqual(
      [...folders].filter((f) => f !== '.').sort(),
    );
    const warnings = folderSizeWarnings(src);
    for (const warning of warnings) {
      console.warn(
        `house: ${warning} (past ${MAX_FOLDER_FILES} files or ${MAX_FOLDER_LINES.toLocaleString('en')} lines): folders by concept, side by side?`,
      );
    }
    expect(warnings.every((w) => sizes.has(w.slice(0, w.indexOf(':'))))).toBe(true);
  });

  it('no file under src/ is over 300 lines without a reason at its top', () => {
    expect(houseProblems(src).longFiles.map(fileOf)).toEqual([]);
  });
});

describe('the house check itself', () => {
  let tree: string | undefined;
  afterEach(() => {
    if (tree) rmSync(tree, { recursive: true, force: true });
    tree = undefined;
  });
  const emptyTree = (): string => (tree = mkdtempSync(join(tmpdir(), 'agentstate-house-')));
  const write = (path: string, text: string): void => {
    mkdirSync(dirname(join(tree!, path)), { recursive: true });
    writeFileSync(join(tree!, path), text);
  };
  const lines = (n: number, first = '') =>
    [first, ...Array.from({ length: n - 1 }, (_, i) => `export const v${i} = ${i};`)].join('\n') +
    '\n';
  const reason = `/**\n * ${LONG_MARKER} the chart of one machine, read from top to bottom as one.\n */`;

  it('counts lines as wc -l does', () => {
    expect(lineCount('')).toBe(0);
    expect(lineCount('a\nb\n')).toBe(2);
    expect(lineCount('a\nb')).toBe(2);
    expect(lineCount(lines(301))).toBe(301);
  });

  it('warns on a folder of more than 25 files, and on one of more than 2,500 lines, without failing', () => {
    emptyTree();
    for (let i = 0; i <= MAX_FOLDER_FILES; i += 1) write(`many/f${i}.ts`, lines(2));
    for (let i = 0; i < MAX_FOLDER_FILES; i += 1) write(`enough/f${i}.ts`, lines(2));
    for (let i = 0; i < 9; i += 1) write(`long/f${i}.ts`, lines(MAX_FILE_LINES - 20));
    expect(folderSizeWarnings(tree!)).toEqual([
      'long: 9 files, 2520 lines in its subtree',
      `many: ${MAX_FOLDER_FILES + 1} files, ${2 * (MAX_FOLDER_FILES + 1)} lines in its subtree`,
    ]);
    expect(9 * (MAX_FILE_LINES - 20)).toBeGreaterThan(MAX_FOLDER_LINES);
    // A warning, not a failure: the failures are files alone.
    expect(houseProblems(tree!)).toEqual({ longFiles: [] });
  });

  it("counts a folder's whole subtree, so a sub-folder does not dodge the limit (Markdown not counted)", () => {
    emptyTree();
    for (let i = 0; i < 20; i += 1) write(`store/f${i}.ts`, lines(2));
    for (let i = 0; i < 20; i += 1) write(`store/kv/f${i}.ts`, lines(2));
    for (let i = 0; i < 5; i += 1) write(`store/kv/deep/f${i}.ts`, lines(2));
    write('store/notes.md', lines(3000));
    expect(folderSizeWarnings(tree!)).toEqual(['store: 45 files, 90 lines in its subtree']);
    expect(folderSizes(tree!).get('store/kv')).toEqual({ files: 25, lines: 50 });
    expect(folderSizes(tree!).get('store/kv/deep')).toEqual({ files: 5, lines: 10 });
  });

  it('does not count a sibling whose name starts like the folder', () => {
    emptyTree();
    for (let i = 0; i < 20; i += 1) write(`store/f${i}.ts`, lines(2));
    for (let i = 0; i < 20; i += 1) write(`store-contract/f${i}.ts`, lines(2));
    expect(folderSizeWarnings(tree!)).toEqual([]);
    expect(folderSizes(tree!).get('store')).toEqual({ files: 20, lines: 40 });
  });

  it('fails on a file over 300 lines unless its top gives a reason', () => {
    emptyTree();
    write('a/bare.ts', lines(MAX_FILE_LINES + 1));
    write('a/reasoned.ts', lines(MAX_FILE_LINES + 1, reason));
    write(
      'a/line-comments.ts',
      lines(
        MAX_FILE_LINES + 1,
        `// ${LONG_MARKER} one contract,\n// one class that implements all of it.`,
      ),
    );
    write(
      'a/directive.ts',
      lines(
        MAX_FILE_LINES + 1,
        `/* eslint-disable max-lines -- ${LONG_MARKER} one class implementing one\n * contract, all of it. */`,
      ),
    );
    write('a/no-reason.ts', lines(MAX_FILE_LINES + 1, `/** ${LONG_MARKER} */`));
    write('a/not-at-top.ts', lines(MAX_FILE_LINES + 1, `import { x } from './x.js';\n${reason}`));
    write('a/exact.ts', lines(MAX_FILE_LINES));
    expect(houseProblems(tree!).longFiles).toEqual([
      'a/bare.ts: 301 lines',
      'a/no-reason.ts: 301 lines',
      'a/not-at-top.ts: 304 lines',
    ]);
  });

  it('reads the reason out of the leading comment', () => {
    expect(longReason(`${reason}\nexport {};\n`)).toBe(
      'the chart of one machine, read from top to bottom as one.',
    );
    expect(longReason(`/** Short. */\n// ${LONG_MARKER} too late for the top comment.\n`)).toBe(
      undefined,
    );
  });
});
