import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent, AgentStateError, ModelError, tool, type ToolErrorInfo } from '../../src/index.js';
import { ScriptedModel } from '../../src/testing.js';
import { TempStores } from '../helpers/temp-store.js';
import { modelFailure } from '../helpers/model-failure.js';

const temps = new TempStores();
afterEach(() => temps.cleanupAll());

const SECRET = 'pg-password-4711';
const redact = (text: string) => text.replaceAll(SECRET, '***');

/** Every byte LevelDB wrote under `dir`, as one buffer per file. */
async function stored(dir: string): Promise<Buffer[]> {
  const names = await readdir(dir);
  return Promise.all(names.map((n) => readFile(join(dir, n))));
}

function failingTool() {
  return tool({
    name: 'query',
    description: 'Queries the database',
    parameters: z.object({ sql: z.string() }),
    execute: () => {
      throw new Error(`connection to postgres://app:${SECRET}@db refused`, {
        cause: new Error(`auth ${SECRET}`),
      });
    },
  });
}

describe('AgentOptions.redact and onToolError', () => {
  it('a tool that throws: the app gets the full error, the model and the store the redacted one', async () => {
    const { store, path } = await temps.open();
    const model = new ScriptedModel(
      [
        { toolCalls: [{ name: 'query', arguments: { sql: 'select 1' }, callId: 'call_q' }] },
        { text: 'The database is down.' },
      ],
      { recordCalls: true },
    );
    const seen: [unknown, ToolErrorInfo][] = [];
    const agent = new Agent({
      name: 'db',
      model,
      tools: [failingTool()],
      store,
      redact,
      onToolError: (error, info) => seen.push([error, info]),
    });
    const result = await agent.run('Is the db up?', { sessionId: 's', userId: 'alice' });
    expect(result.output).toBe('The database is down.');

    expect(seen).toHaveLength(1);
    const [error, info] = seen[0]!;
    expect((error as Error).message).toContain(SECRET); // the full error, for the app's logs
    expect(info).toMatchObject({ toolName: 'query', phase: 'execute', callId: 'call_q' });
    expect(info.context.userId).toBe('alice');

    const toolResult = model.calls[1]?.items.at(-1);
    expect(toolResult).toMatchObject({ type: 'tool_result', isError: true });
    expect((toolResult as { output: string }).output).toContain('postgres://app:***@db');
    expect(JSON.stringify(model.calls)).not.toContain(SECRET);
    expect(JSON.stringify(result.state)).not.toContain(SECRET);
    const view = await agent.runtimeFor(store).getSession({ sessionId: 's', userId: 'alice' });
    expect(JSON.stringify(view)).not.toContain(SECRET);
    await store.close();
    for (const bytes of await stored(path)) expect(bytes.includes(SECRET)).toBe(false);
  });

  it('without redact the hook still sees the error and the model reads it as before', async () => {
    const model = new ScriptedModel(
      [{ toolCalls: [{ name: 'query', arguments: { sql: 'x' } }] }, { text: 'done' }],
      { recordCalls: true },
    );
    const seen: unknown[] = [];
    const agent = new Agent({
      name: 'db',
      model,
      tools: [failingTool()],
      onToolError: (error) => {
        seen.push(error);
        throw new Error('a broken logging hook'); // ignored
      },
    });
    await agent.run('go');
    expect(seen).toHaveLength(1);
    const output = (model.calls[1]?.items.at(-1) as { output: string }).output;
    expect(output).toContain(SECRET);
    expect(output).not.toContain('broken logging hook');
  });

  it('a failing model call and a failing needsApproval: the stored and thrown errors are redacted', async () => {
    const { store, path } = await temps.open();
    const cause = new Error(`upstream said ${SECRET}`);
    const failingModel = new ScriptedModel(
      [{ error: new ModelError(`gateway error for ${SECRET}`, { status: 502, cause }) }],
      { recordCalls: true },
    );
    const agent = new Agent({ name: 'm', model: failingModel, store, redact });
    const key = { sessionId: 'model', userId: 'alice' };
    const thrown = await modelFailure(agent.run('hi', key));
    expect(thrown).toMatchObject({ status: 502, message: 'gateway error for ***' });
    expect((thrown.cause as Error).message).toBe('upstream said ***');

    const seen: ToolErrorInfo[] = [];
    const guarded = tool({
      name: 'pay',
      description: 'Pays',
      parameters: z.object({}),
      needsApproval: () => {
        throw new Error(`policy service rejected token ${SECRET}`);
      },
      execute: () => 'paid',
    });
    const approvals = new Agent({
      name: 'p',
      model: new ScriptedModel([{ toolCalls: [{ name: 'pay' }] }], { recordCalls: true }),
      tools: [guarded],
      store,
      redact,
      onToolError: (_error, info) => seen.push(info),
    });
    const failed = await approvals.run('pay', { sessionId: 'approval', userId: 'alice' }).then(
      () => expect.fail('expected a rejection'),
      (error: unknown) => error as Error,
    );
    expect(failed.message).toBe(
      'needsApproval of tool "pay" threw: policy service rejected token ***',
    );
    expect((failed as AgentStateError).code).toBe('APPROVAL_CHECK_FAILED');
    expect(seen).toMatchObject([{ toolName: 'pay', phase: 'needsApproval' }]);

    const runtime = agent.runtimeFor(store);
    const interrupted = await runtime.getSession(key);
    expect(interrupted.run?.context).toMatchObject({
      interruption: 'error',
      error: { status: 502 },
    });
    const failedView = await runtime.getSession({ sessionId: 'approval', userId: 'alice' });
    expect(failedView.lastRun?.status).toBe('failed');
    for (const view of [interrupted, failedView])
      expect(JSON.stringify(view)).not.toContain(SECRET);
    await store.close();
    for (const bytes of await stored(path)) expect(bytes.includes(SECRET)).toBe(false);
  });
});
