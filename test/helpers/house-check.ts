import { readFileSync, readdirSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

/**
 * The house rules on size, as `test/house/house.test.ts` enforces them on `src/` (CONTRIBUTING.md
 * cites this comment):
 *
 * - A folder holds at most {@link MAX_FOLDER_FILES} `.ts` files and {@link MAX_FOLDER_LINES}
 *   lines of them. Only a folder's own files count, not its sub-folders' (`persistence/kv` is
 *   a folder of its own, like the layers say).
 * - A `.ts` file holds at most {@link MAX_FILE_LINES} lines, unless its top says why it is
 *   longer: the file begins (before any import or code) with a comment that contains
 *   {@link LONG_MARKER} followed by the reason, at least {@link MIN_REASON_CHARS} characters
 *   of it. Write it as ESLint's directive with a description, which also quiets the
 *   `max-lines` warning for that file alone:
 *   `/* eslint-disable max-lines -- Long on purpose: the run machine is one statechart ... *\/`.
 *
 * Lines are counted as `wc -l` and ESLint's `max-lines` count them: every line, blank lines and
 * comments included. Split by concept, never trim to fit: the marker is for a file that is
 * one concept (a machine read as one chart, a class implementing one contract).
 */
export const MAX_FOLDER_FILES = 25;
export const MAX_FOLDER_LINES = 2_500;
export const MAX_FILE_LINES = 300;
export const LONG_MARKER = 'Long on purpose:';
export const MIN_REASON_CHARS = 40;

export interface HouseProblems {
  /** Folders past the file or line bound: `folder: N files, M lines`. */
  crowdedFolders: string[];
  /** Files past the line bound without a reason at their top: `file: N lines`. */
  longFiles: string[];
}

const posix = (path: string) => path.split(sep).join('/');

/** Lines as `wc -l` counts them (a last line without a newline counts too). */
export function lineCount(text: string): number {
  if (text.length === 0) return 0;
  const newlines = text.split('\n').length - 1;
  return text.endsWith('\n') ? newlines : newlines + 1;
}

/** The comment a file begins with (block or consecutive `//` lines), or `undefined`. */
export function leadingComment(text: string): string | undefined {
  const start = text.replace(/^\uFEFF/, '').trimStart();
  if (start.startsWith('/*')) {
    const end = start.indexOf('*/');
    return end < 0 ? undefined : start.slice(0, end + 2);
  }
  if (start.startsWith('//')) {
    const lines = start.split('\n');
    const run = lines.slice(
      0,
      lines.findIndex((line) => !line.trimStart().startsWith('//')),
    );
    return (run.length > 0 ? run : lines).join('\n');
  }
  return undefined;
}

/** The reason a file's top gives for its length (`undefined`: none, or too short). */
export function longReason(text: string): string | undefined {
  const comment = leadingComment(text);
  const at = comment?.indexOf(LONG_MARKER) ?? -1;
  if (comment === undefined || at < 0) return undefined;
  const reason = comment
    .slice(at + LONG_MARKER.length)
    .replace(/\*\/$/, '')
    .replace(/^\s*(\*|\/\/)/gm, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return reason.length >= MIN_REASON_CHARS ? reason : undefined;
}

/** Every folder under `root` (itself included) with its own `.ts` files. */
function folders(root: string): Map<string, string[]> {
  const found = new Map<string, string[]>();
  const walk = (dir: string): void => {
    const own: string[] = [];
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts')) own.push(path);
    }
    found.set(posix(relative(root, dir)) || '.', own);
  };
  walk(root);
  return found;
}

/** What breaks the size rules under `root` (a source tree like `src/`). */
export function houseProblems(root: string): HouseProblems {
  const problems: HouseProblems = { crowdedFolders: [], longFiles: [] };
  for (const [folder, files] of [...folders(root)].sort(([a], [b]) => a.localeCompare(b))) {
    let lines = 0;
    for (const file of files.sort()) {
      const text = readFileSync(file, 'utf8');
      const count = lineCount(text);
      lines += count;
      if (count > MAX_FILE_LINES && longReason(text) === undefined) {
        problems.longFiles.push(`${posix(relative(root, file))}: ${count} lines`);
      }
    }
    if (files.length > MAX_FOLDER_FILES || lines > MAX_FOLDER_LINES) {
      problems.crowdedFolders.push(`${folder}: ${files.length} files, ${lines} lines`);
    }
  }
  return problems;
}
