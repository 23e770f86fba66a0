import { readdirSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { testFiles } from '../../scripts/test-files.js';

export { testFiles };

/**
 * Where a test file may sit: `test/<a folder of src/>/` for the code it tests (the most specific
 * folder it exercises), or one of these folders for tests of no one `src/` folder. Helpers and
 * fixtures hold no test files.
 */
export const NAMED_TEST_FOLDERS: Readonly<Record<string, string>> = {
  docs: 'the docs: type-checked blocks, links, the API page, the machine charts',
  examples: 'the runnable examples under examples/',
  house: 'the house rules: layering, file and folder sizes, the folder map, the test folders',
  package:
    'the package as published: its exports, the packed tarball, a fresh clone, the Node range',
  bench: 'the benchmark under bench/',
  scripts: 'the scripts under scripts/ that the build and CI run',
};

/** Every folder under `dir` (itself excluded), as paths relative to `dir`. */
function folders(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)).split(sep).join('/'));
}

/**
 * The test files of `testDir` that sit in a folder mirroring no folder of `srcDir` and named
 * in none of {@link NAMED_TEST_FOLDERS} (a file directly in `testDir` included).
 */
export function misplacedTestFiles(testDir: string, srcDir: string): string[] {
  const mirrored = new Set(folders(srcDir));
  return testFiles(testDir).filter((file) => {
    const folder = file.includes('/') ? file.slice(0, file.lastIndexOf('/')) : '';
    return !mirrored.has(folder) && !(folder in NAMED_TEST_FOLDERS);
  });
}
