import { SCRIPT_CHART } from './script-chart.js';
import { SCRIPT_CORE } from './script-core.js';
import { SCRIPT_VIEWS } from './script-views.js';

/** The inspector page's whole script (served as `/app.js`), in one scope. */
export const PAGE_SCRIPT = `(function () {\n'use strict';\n${SCRIPT_CORE}\n${SCRIPT_CHART}\n${SCRIPT_VIEWS}\n})();\n`;
