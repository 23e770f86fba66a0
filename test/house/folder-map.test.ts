import { readFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { LAYERS, sourceFiles } from '../helpers/layering-check.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const src = join(root, 'src');
const page = readFileSync(join(root, 'docs', 'folders.md'), 'utf8');

/** The folders each row of the map's table names, top row first, as the layers name them. */
function rows(markdown: string): string[][] {
  return markdown
    .split('\n')
    .filter((line) => line.startsWith('| `src/'))
    .map((line) =>
      [...line.split('|')[1]!.matchAll(/`src\/([^`]*)`/g)].map(
        (m) => m[1]!.replace(/\/$/, '') || '.',
      ),
    );
}

const treeFolders = [
  ...new Set(sourceFiles(src).map((f) => relative(src, dirname(f)).split(sep).join('/') || '.')),
];

/** What a folder map gets wrong against the tree and the layers. */
function mapProblems(markdown: string) {
  const mapRows = rows(markdown);
  const named = mapRows.flat();
  const sorted = (rowsOf: readonly (readonly string[])[]) => rowsOf.map((r) => [...r].sort());
  return {
    missing: treeFolders.filter((f) => !named.includes(f)).sort(),
    extra: named.filter((f) => !treeFolders.includes(f)).sort(),
    twice: named.filter((f, i) => named.indexOf(f) !== i),
    /** The map's rows must be the layers, top first (folders of a row in any order). */
    outOfOrder: JSON.stringify(sorted(mapRows)) !== JSON.stringify(sorted([...LAYERS].reverse())),
  };
}

const none = { missing: [], extra: [], twice: [], outOfOrder: false };

describe('docs/folders.md', () => {
  it('names every folder of src/ once, in the layering order, top first', () => {
    expect(mapProblems(page)).toEqual(none);
  });

  it('fails on a map that misses a folder, names one that is not there, or swaps two rows', () => {
    const runsRow = page.split('\n').find((l) => l.startsWith('| `src/runs/`'))!;
    const auditRow = page.split('\n').find((l) => l.startsWith('| `src/audit/`'))!;
    expect(mapProblems(page.replace(`${runsRow}\n`, ''))).toMatchObject({ missing: ['runs'] });
    expect(mapProblems(page.replace('`src/audit/`', '`src/governance/`'))).toMatchObject({
      missing: ['audit'],
      extra: ['governance'],
    });
    const swapped = page.replace(runsRow, '@@').replace(auditRow, runsRow).replace('@@', auditRow);
    expect(mapProblems(swapped)).toEqual({ ...none, outOfOrder: true });
  });
});
