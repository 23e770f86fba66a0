import { readFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { FOLDER_MAP_COMMAND, FOLDER_MAP_PAGE, folderMapPage } from '../../scripts/folder-map.js';
import { LAYERS } from '../../scripts/layers.js';
import { layerFolders, sourceFiles } from '../helpers/layering-check.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const src = join(root, 'src');
const page = readFileSync(join(root, 'docs', 'folders.md'), 'utf8');

/** The folders each row of the map's tables names, top row first, as the layers name them. */
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
  const named = rows(markdown).flat();
  return {
    missing: treeFolders.filter((f) => !named.includes(f)).sort(),
    extra: named.filter((f) => !treeFolders.includes(f)).sort(),
    twice: named.filter((f, i) => named.indexOf(f) !== i),
    /** The map's rows must be the layers' folders, top first. */
    outOfOrder: JSON.stringify(named) !== JSON.stringify(layerFolders().reverse()),
  };
}

const none = { missing: [], extra: [], twice: [], outOfOrder: false };

describe('docs/folders.md', () => {
  it(`is what \`${FOLDER_MAP_COMMAND}\` writes from scripts/layers.ts`, async () => {
    expect(FOLDER_MAP_PAGE).toBe(join(root, 'docs', 'folders.md'));
    expect(page).toBe(await folderMapPage());
  });

  it('fails when the layers change and the page is not written again', async () => {
    const renamed = LAYERS.map((layer) =>
      layer.name === 'Core'
        ? {
            ...layer,
            folders: layer.folders.map((f) =>
              f.folder === 'errors' ? { ...f, holds: 'errors, described anew' } : f,
            ),
          }
        : layer,
    );
    const written = await folderMapPage(renamed);
    expect(written).not.toBe(page);
    expect(written).toMatch(/^\| `src\/errors\/` +\| errors, described anew +\|$/m);
  });

  it('names every folder of src/ once, in the layering order, top first, under its layer', () => {
    expect(mapProblems(page)).toEqual(none);
    const headings = page.split('\n').filter((line) => line.startsWith('## '));
    expect(headings).toEqual([...LAYERS].reverse().map((l, i) => `## ${i + 1}. ${l.name}`));
    expect(headings.length).toBeGreaterThanOrEqual(6);
    expect(headings.length).toBeLessThanOrEqual(8);
  });

  it('gives each layer and each folder a one-line description', () => {
    const texts = LAYERS.flatMap((l) => [l.name, l.holds, ...l.folders.map((f) => f.holds)]);
    expect(texts.filter((t) => t.trim() === '' || /[\n|]/.test(t))).toEqual([]);
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
