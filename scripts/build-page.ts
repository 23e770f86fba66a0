/**
 * `npm run build:page`: writes `src/inspect/page/page-script.ts`, the inspector page's script
 * bundled from `src/inspect/page/browser/` (see `page-script-build.ts`).
 */
import { writeFile } from 'node:fs/promises';
import { PAGE_SCRIPT_MODULE, pageScriptModule } from './page-script-build.js';

await writeFile(PAGE_SCRIPT_MODULE, await pageScriptModule());
process.stdout.write(`wrote ${PAGE_SCRIPT_MODULE}\n`);
