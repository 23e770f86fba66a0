/**
 * `npm run build:page`: writes `src/inspect/page/browser/charts/chart-layouts.ts`, the statecharts laid
 * out from the machine definitions (see `chart-layouts.ts`), then
 * `generated/inspector-page-script.js` (and its `.d.ts`), the inspector page's script bundled
 * from `src/inspect/page/browser/` (see `page-script-build.ts`).
 */
import { writeFile } from 'node:fs/promises';
import { CHART_LAYOUTS_MODULE, chartLayoutsModule } from './chart-layouts.js';
import {
  PAGE_SCRIPT_MODULE,
  PAGE_SCRIPT_TYPES,
  pageScriptModule,
  pageScriptTypes,
} from './page-script-build.js';

await writeFile(CHART_LAYOUTS_MODULE, await chartLayoutsModule());
process.stdout.write(`wrote ${CHART_LAYOUTS_MODULE}\n`);
await writeFile(PAGE_SCRIPT_MODULE, await pageScriptModule());
process.stdout.write(`wrote ${PAGE_SCRIPT_MODULE}\n`);
await writeFile(PAGE_SCRIPT_TYPES, await pageScriptTypes());
process.stdout.write(`wrote ${PAGE_SCRIPT_TYPES}\n`);
