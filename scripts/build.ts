/**
 * `npm run build`: writes `dist/`, the package as shipped (see `package-build.ts`).
 * `tsx scripts/build.ts <folder>` builds into another folder.
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildPackage } from './package-build.js';

const outDir = resolve(process.argv[2] ?? fileURLToPath(new URL('../dist', import.meta.url)));
await buildPackage({ outDir });
process.stdout.write(`built ${outDir}\n`);
