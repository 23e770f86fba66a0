/**
 * `npm run build`: writes `dist/`, the package as shipped (see `package-build.ts`). It refuses
 * to build when the inspector page's generated script is stale (`npm run build:page` writes it
 * again; `test/inspector-page-script.test.ts` fails on it too).
 * `tsx scripts/build.ts <folder>` builds into another folder.
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildPackage } from './package-build.js';
import { checkPageScript } from './page-script-build.js';

const outDir = resolve(process.argv[2] ?? fileURLToPath(new URL('../dist', import.meta.url)));
await checkPageScript();
await buildPackage({ outDir });
process.stdout.write(`built ${outDir}\n`);
