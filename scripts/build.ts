/**
 * `npm run build`: writes `dist/`, the package as shipped (see `package-build.ts`). It refuses
 * to build when the inspector page's generated script or its statecharts' layouts are stale
 * (`generated/inspector-page-script.js`; `npm run build:page` writes them again;
 * `test/inspect/page/inspector-page-script.test.ts` and
 * `test/inspect/page/browser/charts/chart-layouts.test.ts` fail on them too).
 * `tsx scripts/build.ts <folder>` builds into another folder.
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildPackage } from './package-build.js';
import { chartLayoutsAreFresh } from './chart-layouts.js';
import { checkPageScript } from './page-script-build.js';

const outDir = resolve(process.argv[2] ?? fileURLToPath(new URL('../dist', import.meta.url)));
await checkPageScript();
if (!(await chartLayoutsAreFresh())) {
  throw new Error(
    'src/inspect/page/browser/charts/chart-layouts.ts is not what the machines lay out: run `npm run build:page`',
  );
}
await buildPackage({ outDir });
process.stdout.write(`built ${outDir}\n`);
