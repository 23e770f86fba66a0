import { readFileSync, readdirSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

/**
 * The house rules on size, as `test/house/house.test.ts` enforces them on `src/` (CONTRIBUTING.md
 * cites this comment):
 *
 * - A folder's whole subtree (its files and its sub-folders', all the way down) past
 *   {@link MAX_FOLDER_FILES} `.ts` files or {@link MAX_FOLDER_LINES} lines of them is a
 *   warning, not a failure ({@link folderSizeWarnings}): it asks whether the folder holds two
 *   concepts, to be answered by folders side by side, each named for its concept. A sub-folder
 *   made to get under the limit does not dodge it, since the parent counts it too.
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
  /** Files past the line bound without a reason at their top: `file: N lines`. */
  longFiles: string[];
}

/** The `.ts` files and their lines under a folder, its sub-folders included. */
export interface FolderSize {
  files: number;
  lines: number;
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

/** Whether `folder` is `parent` or lies under it (`.` is the root, above every folder). */
const within = (folder: string, parent: string): boolean =>
  parent === '.' || folder === parent || folder.startsWith(`${parent}/`);

/** Each folder under `root` (itself included, as `.`) with the size of its whole subtree. */
export function folderSizes(root: string): Map<string, FolderSize> {
  const own = [...folders(root)].map(([folder, files]) => ({
    folder,
    files: files.length,
    lines: files.reduce((sum, file) => sum + lineCount(readFileSync(file, 'utf8')), 0),
  }));
  return new Map(
    own
      .map(({ folder }) => {
        const under = own.filter((o) => within(o.folder, folder));
        const size = {
          files: under.reduce((sum, o) => sum + o.files, 0),
          lines: under.reduce((sum, o) => sum + o.lines, 0),
        };
        return [folder, size] as const;
      })
      .sort(([a], [b]) => a.localeCompare(b)),
  );
}

/**
 * The folders under `root` (not `root` itself) whose whole subtree passes the file or line
 * bound, as `folder: N files, M lines in its subtree`: warnings, not failures.
 */
export function folderSizeWarnings(root: string): string[] {
  return [...folderSizes(root)]
    .filter(([folder]) => folder !== '.')
    .filter(([, size]) => size.files > MAX_FOLDER_FILES || size.lines > MAX_FOLDER_LINES)
    .map(([folder, size]) => `${folder}: ${size.files} files, ${size.lines} lines in its subtree`);
}

/** What breaks the file size rule under `root` (a source tree like `src/`). */
export function houseProblems(root: string): HouseProblems {
  const problems: HouseProblems = { longFiles: [] };
  for (const [, files] of [...folders(root)].sort(([a], [b]) => a.localeCompare(b))) {
    for (const file of files.sort()) {
      const text = readFileSync(file, 'utf8');
      const count = lineCount(text);
      if (count > MAX_FILE_LINES && longReason(text) === undefined) {
        problems.longFiles.push(`${posix(relative(root, file))}: ${count} lines`);
      }
    }
  }
  return problems;
}
