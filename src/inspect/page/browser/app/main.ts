/**
 * The inspector page's script: the entry of the code that runs in the browser (this folder).
 *
 * How it reaches the browser: `scripts/page-script-build.ts` bundles this entry with esbuild (one
 * IIFE, ES2020, not minified) into `generated/inspector-page-script.js` at the repository's
 * root (outside `src/`), a generated module that exports the bundle as a string, and the server
 * sends that string as `/app.js`. The generated module is committed, so there is one code path at run time: the page served from source (vitest,
 * tsx) and from the built package (`dist/`, where esbuild bundles the generated module like
 * any other) is the same string, and the published package needs no bundler. Bundling it at
 * build time instead would leave the source runs without it (or with a second path through a
 * loader plugin); serving functions' `toString()` breaks once a bundler renames what they
 * share. The price is a generated file that can go stale: `npm run build` refuses to build
 * with a stale one, and `test/inspect/page/inspector-page-script.test.ts` fails on it; `npm run build:page`
 * writes it again.
 *
 * This folder has its own `tsconfig.json` (DOM types, no Node types, the same strict options)
 * that `npm run typecheck` checks and ESLint's type-checked rules read; it imports nothing but
 * its own modules.
 */
import type { InspectorInfo, MachineCharts } from '../api-types.js';
import { renderControls } from './controls-view.js';
import { api } from '../inspector-api.js';
import { renderFeed } from './feed-view.js';
import { startLive } from './live-feed.js';
import type { Page } from '../page.js';
import { fail } from '../page-error.js';
import { newPageState } from '../page-state.js';
import { openRun, openSession } from './session-view.js';
import { loadSessions } from './sessions-view.js';
import { openMemory } from './memory-view.js';
import { openSchedules } from './schedules-view.js';
import { openEval, openEvals } from './evals-view.js';
import { openWorkflow } from './workflow-view.js';
import { loadWorkflows } from './workflows-view.js';
import { byId, h } from '../dom.js';

/** Reads who the page is for and the machines' charts, then shows the controls and sessions. */
async function start(): Promise<void> {
  const [info, machines] = await Promise.all([
    api<InspectorInfo>('', '/api/info'),
    api<MachineCharts>('', '/api/machines'),
  ]);
  const page: Page = {
    info,
    machines,
    state: newPageState(info.userId || ''),
    loadSessions: (more) => loadSessions(page, more),
    openSession: (sessionId) => openSession(page, sessionId),
    openRun: (runId) => openRun(page, runId),
    loadWorkflows: (more) => loadWorkflows(page, more),
    openWorkflow: (id) => openWorkflow(page, id),
    openMemory: (resource) => openMemory(page, resource),
    openSchedules: (note) => openSchedules(page, note),
    openEvals: (id) => (id === undefined ? openEvals(page) : openEval(page, id)),
    startLive: () => startLive(page),
  };
  renderControls(page);
  page.startLive();
  await page.loadSessions();
  renderFeed(page);
  // The app's workflow instances, listed under the sessions when the inspector hosts workflows.
  if (info.workflows.length) {
    byId('sessions').appendChild(h('div', { id: 'workflow-pane' }));
    await page.loadWorkflows();
  }
}

start().catch((error: unknown) => fail(newPageState(''), error));
