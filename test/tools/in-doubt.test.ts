import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  Agent,
  AgentStateError,
  tool,
  type OnInterrupted,
  type ReconcileOutcome,
} from '../../src/index.js';
import type { McpConnection } from '../../src/mcp/mcp-connection.js';
import { mcpTool } from '../../src/mcp/mcp-tool.js';
import { TempStores } from '../helpers/temp-store.js';
import {
  crashWhilePaying,
  key,
  payModel,
  payTool,
  reopenedPayer,
  type PayOptions,
} from '../helpers/in-doubt-payment.js';

const temps = new TempStores();
afterEach(() => temps.cleanupAll());

/**
 * Runs `pay` in a first agent whose store loses power while the tool runs, then resumes the run
 * in a fresh agent over the reopened store whose `pay` follows `options`. Returns the resumed
 * run, the charges of the second agent and the call's journal entry.
 */
async function crashThenResume(options: PayOptions) {
  const path = await crashWhilePaying(temps, options);
  const { agent, charges, entry: entryOf } = await reopenedPayer(temps, path, options);
  const result = await agent.resume(key.sessionId, { userId: key.userId });
  const entry = (await entryOf(result.id))!;
  return { result, charges, entry, output: entry.output as Record<string, unknown> };
}

describe('a tool call in doubt after a crash', () => {
  it('a tool that says nothing fails the call: the model reads the outcome is unknown; it does not run again', async () => {
    const { result, charges, entry, output } = await crashThenResume({});
    expect(charges).toEqual([]);
    expect(result.output).toMatch(
      /^error: Error: the outcome of this call of tool "pay" is unknown/,
    );
    expect(result.output).toContain('call id c1');
    expect(output).toMatchObject({ isError: true, inDoubt: { resolution: 'failed' } });
    expect(entry.restarts).toBe(1);
  });

  it("'tools' durability saves the call's start too: the call is in doubt", async () => {
    const { charges, output } = await crashThenResume({ durability: 'tools' });
    expect(charges).toEqual([]);
    expect(output).toMatchObject({ isError: true, inDoubt: { resolution: 'failed' } });
  });

  it("'run' durability saves nothing before a tool: a run killed before its first pause was never stored", async () => {
    await expect(crashThenResume({ durability: 'run' })).rejects.toMatchObject({
      code: 'NOTHING_TO_RESUME',
    });
  });

  it("an idempotent tool (default 'retry') runs again with the same call id", async () => {
    const { result, charges, output } = await crashThenResume({ idempotent: true });
    expect(charges).toEqual(['c1']);
    expect(result.output).toBe('ok: charged c1');
    expect(output).toMatchObject({ isError: false, inDoubt: { resolution: 'retried' } });
  });

  it("onInterrupted 'fail' wins over idempotent", async () => {
    const { charges, output } = await crashThenResume({ idempotent: true, onInterrupted: 'fail' });
    expect(charges).toEqual([]);
    expect(output).toMatchObject({ inDoubt: { resolution: 'failed' } });
  });

  it('reconcile that finds the effect gives its result; the tool does not run again', async () => {
    const { result, charges, output } = await crashThenResume({
      reconcile: () => ({ result: 'charged earlier' }),
    });
    expect(charges).toEqual([]);
    expect(result.output).toBe('ok: charged earlier');
    expect(output).toMatchObject({
      isError: false,
      inDoubt: { resolution: 'reconciled', reconcile: 'result' },
    });
  });

  it("reconcile 'retry' runs the call again", async () => {
    const { charges, output } = await crashThenResume({ reconcile: () => 'retry' });
    expect(charges).toEqual(['c1']);
    expect(output).toMatchObject({ inDoubt: { resolution: 'retried', reconcile: 'retry' } });
  });

  it("reconcile 'unknown' (or a thrown lookup) follows the tool's fallback", async () => {
    const unknown = await crashThenResume({ reconcile: () => 'unknown' });
    expect(unknown.charges).toEqual([]);
    expect(unknown.output).toMatchObject({
      isError: true,
      inDoubt: { resolution: 'failed', reconcile: 'unknown' },
    });
    const thrown = await crashThenResume({
      onInterrupted: 'retry',
      reconcile: () => Promise.reject(new Error('provider down')),
    });
    expect(thrown.charges).toEqual(['c1']);
    expect(thrown.output).toMatchObject({ inDoubt: { resolution: 'retried', reconcile: 'error' } });
  });

  it("reconcile answering neither { result }, 'retry' nor 'unknown' is a typed error, not an empty result", async () => {
    for (const answer of ['done', { found: true }, null]) {
      const path = await crashWhilePaying(temps, {});
      const options = { reconcile: () => answer as unknown as ReconcileOutcome<string> };
      const { agent, store, charges, entry } = await reopenedPayer(temps, path, options);
      const error = await agent.resume(key.sessionId, { userId: key.userId }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error, JSON.stringify(answer)).toBeInstanceOf(AgentStateError);
      expect(error).toMatchObject({ code: 'INVALID_RECONCILE_OUTCOME' });
      expect((error as Error).message).toContain('"pay"');
      expect((error as Error).message).toContain(JSON.stringify(answer));
      expect(charges).toEqual([]);
      // The model never read a result the tool did not give.
      const view = await agent.runtimeFor(store).getSession(key);
      expect(view.lastRun?.error).toMatchObject({ code: 'INVALID_RECONCILE_OUTCOME' });
      expect(await entry(view.lastRun!.runId)).toBeUndefined();
    }
  });

  it('a call that finished normally carries no in-doubt record', async () => {
    const { store } = await temps.open();
    const charges: string[] = [];
    const agent = new Agent({
      name: 'payer',
      model: payModel(),
      store,
      tools: [payTool(charges, {})],
    });
    const result = await agent.run('pay 5', key);
    const journal = await store.readRunJournal(key, result.id);
    expect(journal.find((e) => e.kind === 'tool')?.output).not.toHaveProperty('inDoubt');
    expect(charges).toEqual(['c1']);
  });

  it('bad options are TypeErrors naming the option', () => {
    const base = {
      name: 'pay',
      description: 'Charges the card',
      parameters: z.object({ amount: z.number() }),
      execute: () => 'ok',
    };
    expect(() => tool({ ...base, onInterrupted: 'maybe' as OnInterrupted })).toThrow(
      /onInterrupted.*'retry', 'ask' or 'fail'/,
    );
    expect(() => tool({ ...base, idempotent: 'yes' as unknown as boolean })).toThrow(/idempotent/);
    expect(() => tool({ ...base, reconcile: 1 as unknown as () => 'retry' })).toThrow(/reconcile/);
  });
});

describe("an MCP tool's idempotent", () => {
  it("comes from the server's idempotentHint; without it, the tool says nothing (its call in doubt fails)", () => {
    const setup = {
      toolkit: 'files',
      name: 'write',
      connection: {} as McpConnection, // never called: no call is made
      validator: new AjvJsonSchemaValidator(),
      needsApproval: false,
    };
    const described = (annotations?: { idempotentHint?: boolean }) =>
      mcpTool({ name: 'write', inputSchema: { type: 'object' }, annotations }, setup);
    expect(described({ idempotentHint: true }).idempotent).toBe(true);
    expect(described({ idempotentHint: false }).idempotent).toBe(false);
    expect(described({}).idempotent).toBeUndefined();
    expect(described().idempotent).toBeUndefined();
  });
});
