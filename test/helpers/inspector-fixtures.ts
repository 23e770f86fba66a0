import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll } from 'vitest';
import type { InspectorHandle } from '../../src/inspect.js';
import { TempStores } from './temp-store.js';
import { Agent, tool, type ModelRequest, type SessionStore } from '../../src/index.js';
import { ScriptedModel } from '../../src/testing.js';
import { launchHeadlessChromium } from '../../scripts/headless-chromium.js';
import { deferred, type Deferred } from './async.js';
import { lastResult, triageWithBilling } from './sub-agent-fixtures.js';

/** Where the browser tests write their screenshots (git-ignored). */
export const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/inspector/', import.meta.url));

/** The registry-shipped headless Chromium (scripts/headless-chromium.ts). */
export async function launchChromium(): Promise<Browser> {
  await mkdir(ARTIFACTS, { recursive: true });
  return launchHeadlessChromium();
}

/**
 * What a browser test file of the inspector shares: one Chromium for the file, temp stores and
 * the inspectors it starts, all closed after each test (the hooks are registered here).
 */
export function useInspectorPages(): {
  temps: TempStores;
  inspectors: InspectorHandle[];
  newPage: (options?: BrowserContextOptions) => Promise<Page>;
} {
  const temps = new TempStores();
  const inspectors: InspectorHandle[] = [];
  let browser: Browser | undefined;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(() => browser?.close());
  afterEach(async () => {
    await Promise.all(inspectors.splice(0).map((i) => i.close()));
    await temps.cleanupAll();
  });
  return { temps, inspectors, newPage: (options) => browser!.newPage(options) };
}

const lastUserText = (request: ModelRequest): string => {
  const users = request.items.filter((i) => i.type === 'message' && i.role === 'user');
  const last = users[users.length - 1];
  return last?.type === 'message' && typeof last.content === 'string' ? last.content : '';
};

/**
 * An `ops` agent: "wait" makes it call `gate`, a tool that holds until the test opens it (a
 * live run to watch); "refund" hands the task to the billing sub-agent, whose refund a human
 * approves; anything else it answers at once.
 */
export function opsAgent(store: SessionStore) {
  const { billing, seen } = triageWithBilling({ store });
  let gate: Deferred<void> = deferred();
  let entered: Deferred<void> = deferred();
  const gateTool = tool({
    name: 'gate',
    description: 'Waits for the gate to open',
    parameters: z.object({}),
    execute: async () => {
      entered.resolve();
      await gate.promise;
      return 'gate open';
    },
  });
  const model = new ScriptedModel((request) => {
    const result = lastResult(request);
    if (result !== undefined) return { text: `ops: ${result}` };
    const text = lastUserText(request);
    if (text.includes('wait')) return { toolCalls: [{ name: 'gate', arguments: {} }] };
    if (text.includes('refund')) {
      return { toolCalls: [{ name: 'ask_billing', arguments: { input: text } }] };
    }
    return { text: `ops heard: ${text}` };
  });
  const agent = new Agent({
    name: 'ops',
    model,
    store,
    tools: [billing.asTool({ name: 'ask_billing', description: 'Billing questions' }), gateTool],
  });
  return {
    agent,
    seen,
    /** Resolves once a run is inside `gate`. */
    entered: () => entered.promise,
    open: () => gate.resolve(),
    /** A new closed gate for the next run. */
    reset: () => {
      gate = deferred();
      entered = deferred();
    },
  };
}
