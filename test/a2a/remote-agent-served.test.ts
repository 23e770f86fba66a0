import { afterEach, describe, expect, it } from 'vitest';
import { Agent, LevelSessionStore, type SessionStore } from '../../src/index.js';
import { cliInProcess } from '../helpers/cli-in-process.js';
import { remoteAgent } from '../../src/a2a.js';
import { ScriptedModel } from '../../src/testing.js';
import { TempStores } from '../helpers/temp-store.js';
import { startA2AServer, type A2AServer } from '../helpers/a2a-server.js';
import { lastResult } from '../helpers/sub-agent-fixtures.js';

/**
 * Issue 47, both sides: a local agent calls an agentstate agent served by `createA2AHandler`
 * through `remoteAgent`, by the protocol convention (approvals, decisions, usage).
 */
const temps = new TempStores();
const servers: A2AServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
  await temps.cleanupAll();
});

async function setup(ask: string) {
  const server = await startA2AServer();
  servers.push(server);
  const temp = await temps.open();
  return { server, temp, a: agentA(server, temp.store, ask) };
}

/** Agent A on `store`, asking B (served by `server`) with `ask`. */
function agentA(server: A2AServer, store: SessionStore, ask: string): Agent {
  const remote = remoteAgent({
    name: 'assistant_b',
    url: `${server.origin}/a2a`,
    headers: { 'x-user': 'alice' },
  });
  const model = new ScriptedModel((request) => {
    const said = lastResult(request);
    return said === undefined
      ? { toolCalls: [{ name: 'ask_b', arguments: { input: ask } }] }
      : { text: `B said: ${said}` };
  });
  return new Agent({
    name: 'a',
    model,
    store,
    tools: [remote.asTool({ name: 'ask_b', description: 'Asks agent B' })],
  });
}

describe('remoteAgent against an agentstate A2A server', () => {
  it("sends the task, and the remote run's answer is the sub-agent's; its usage rolls up", async () => {
    const { a } = await setup('add');
    const result = await a.run('go', { sessionId: 'served-1' });
    expect(result.interrupted).toBe(false);
    expect(result.output).toBe('B said: The sum is 5.');
    // A's two scripted answers (10 / 5 each) and B's run: two more of its own.
    expect(result.usage).toMatchObject({ inputTokens: 40, outputTokens: 20 });
  });

  it("B's approval surfaces at the top of A's run; approved there, B pays and answers", async () => {
    const { a } = await setup('pay');
    const paused = await a.run('go', { sessionId: 'served-2' });
    expect(paused.interruptionReason).toBe('approval');
    const [asked] = paused.interruptions;
    expect(asked!.toolName).toBe('remote_input');
    expect(asked!.agentPath).toEqual(['a', 'assistant_b']);
    const args = asked!.arguments as { question: string; approvals: { tool: string }[] };
    expect(args.approvals.map((x) => x.tool)).toEqual(['pay']);
    expect(args.question).toContain('pay');

    const done = await a.approve('served-2', asked!.callId);
    expect(done.interrupted).toBe(false);
    expect(done.output).toBe('B said: Pay said: paid 500');
  });

  it("a rejection in A is B's rejection: B's model reads it and answers", async () => {
    const { a } = await setup('pay');
    const paused = await a.run('go', { sessionId: 'served-3' });
    const done = await a.reject('served-3', paused.interruptions[0]!.callId, {
      message: 'too much',
    });
    expect(done.interrupted).toBe(false);
    expect(done.output).toContain('too much');
  });

  it("B's question is approved from A's command line (agentstate approve); A resumed, B pays", async () => {
    const { server, temp, a } = await setup('pay');
    const paused = await a.run('go', { sessionId: 'served-4' });
    const callId = paused.interruptions[0]!.callId;
    await temp.store.close();
    const shown = await cliInProcess(['sessions', 'show', 'served-4', '--db', temp.path]);
    expect(shown.stdout).toContain(callId);
    const approved = await cliInProcess(['approve', 'served-4', callId, '--db', temp.path]);
    expect(approved.code, approved.stderr).toBe(0);

    const store = await LevelSessionStore.open({ path: temp.path });
    temps.defer(() => store.close());
    const done = await agentA(server, store, 'pay').resume('served-4');
    expect(done.interrupted).toBe(false);
    expect(done.output).toBe('B said: Pay said: paid 500');
  });
});
