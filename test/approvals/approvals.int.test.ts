import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { callFingerprint } from '../../src/runs/call-fingerprint.js';
import { afterEach, describe, expect, it } from 'vitest';
import {
  LevelSessionStore,
  RunState,
  UnknownCallError,
  type Item,
  type ToolResultItem,
} from '../../src/index.js';
import { approvalAgent, callOrder, callTools, newCounters } from '../helpers/approval-agent.js';
import { runApprovalChild } from '../helpers/approval-process.js';
import { TempStores } from '../helpers/temp-store.js';

const temps = new TempStores();
afterEach(() => temps.cleanupAll());

const key = { sessionId: 'approvals', userId: 'alice' };
const opts = { sessionId: key.sessionId, userId: key.userId };
const email = (to: string) => ({ name: 'send_email', arguments: { to, body: 'hello' } });
const remove = (path: string) => ({ name: 'delete_file', arguments: { path } });

/** The tool results among `items`, in call order (parallel calls finish in any order). */
function resultsOf(items: Item[]): ToolResultItem[] {
  return items
    .filter((i): i is ToolResultItem => i.type === 'tool_result')
    .sort((a, b) => callOrder(a.callId) - callOrder(b.callId));
}

describe('approvals', () => {
  it('pauses on a needsApproval tool and persists the session awaiting approval', async () => {
    const { store } = await temps.open();
    const { agent, counters } = approvalAgent(store);
    const result = await agent.run(callTools(email('bob@example.com')), opts);

    expect(result.interrupted).toBe(true);
    expect(result.interruptionReason).toBe('approval');
    expect(result.interruptions).toEqual([
      {
        callId: 'call_1_0',
        toolName: 'send_email',
        arguments: { to: 'bob@example.com', body: 'hello' },
        agent: 'assistant',
        runId: result.id,
        fingerprint: callFingerprint(
          'send_email',
          JSON.stringify({ to: 'bob@example.com', body: 'hello' }),
        ),
      },
    ]);
    expect(counters.executed).toEqual({});
    const view = await agent.runtimeFor(store).getSession(key);
    expect(view.state).toBe('active.running');
    expect(view.run?.state).toBe('awaitingApproval');
    expect((await store.readHistory(key)).map((i) => i.type)).toEqual(['message', 'tool_call']);
  });

  it('evaluates a needsApproval function once per call, journals it, and never re-evaluates on resume', async () => {
    const { store } = await temps.open();
    const first = approvalAgent(store);
    const paused = await first.agent.run(
      callTools(remove('/etc/passwd'), remove('/tmp/scratch')),
      opts,
    );

    expect(paused.interruptions.map((i) => i.arguments)).toEqual([{ path: '/etc/passwd' }]);
    expect(first.counters.checked).toBe(2);
    expect(first.counters.checkContexts[0]).toEqual({
      sessionId: key.sessionId,
      userId: key.userId,
    });
    // The approval check is journaled: step 0 is the model call, 1 and 2 the tool calls, 3 the check.
    const journaled = await store.readJournal(key, paused.id, 3);
    expect(journaled?.kind).toBe('approval');
    expect(journaled?.output).toMatchObject({
      decisions: [
        { callId: 'call_1_0', needsApproval: true },
        { callId: 'call_1_1', needsApproval: false },
      ],
    });

    // A new Agent instance (fresh counters) resumes: the function is not called again.
    const second = approvalAgent(store);
    const state = RunState.fromJSON(JSON.stringify(paused.state)).approve('call_1_0');
    const done = await second.agent.resume(state);
    expect(done.interrupted).toBe(false);
    expect(second.counters.checked).toBe(0);
    expect(first.counters.checked + second.counters.checked).toBe(2);
    expect(second.counters.executed).toEqual({ delete_file: 2 });
    expect(done.output).toBe(
      'Done. delete_file: deleted /etc/passwd | delete_file: deleted /tmp/scratch',
    );
  });

  it('runs without pausing when the function says no approval is needed', async () => {
    const { store } = await temps.open();
    const { agent, counters } = approvalAgent(store);
    const result = await agent.run(callTools(remove('/tmp/a')), opts);
    expect(result.interrupted).toBe(false);
    expect(counters).toMatchObject({ checked: 1, executed: { delete_file: 1 } });
  });

  it('approves some calls and rejects others in the same turn; the model reads the rejection', async () => {
    const { store } = await temps.open();
    const { agent, counters, model } = approvalAgent(store);
    const paused = await agent.run(
      callTools(email('bob@example.com'), email('eve@example.com'), remove('/etc/x')),
      opts,
    );
    expect(paused.interruptions.map((i) => i.callId)).toEqual(['call_1_0', 'call_1_1', 'call_1_2']);

    paused.state
      .approve('call_1_0')
      .reject('call_1_1', { message: 'Eve is not a customer.' })
      .reject('call_1_2');
    const done = await agent.resume(paused.state);

    expect(counters.executed).toEqual({ send_email: 1 });
    const results = resultsOf(model.calls[1]!.items);
    expect(results).toEqual([
      {
        type: 'tool_result',
        callId: 'call_1_0',
        name: 'send_email',
        output: 'sent to bob@example.com',
      },
      {
        type: 'tool_result',
        callId: 'call_1_1',
        name: 'send_email',
        output: 'Eve is not a customer.',
        isError: true,
      },
      {
        type: 'tool_result',
        callId: 'call_1_2',
        name: 'delete_file',
        output: 'The call to "delete_file" was rejected and did not run.',
        isError: true,
      },
    ]);
    expect(done.output).toContain('send_email (error): Eve is not a customer.');
  });

  it('keeps `always` decisions in the session and applies them to later runs without pausing', async () => {
    const { store } = await temps.open();
    const { agent, counters, model } = approvalAgent(store);
    const paused = await agent.run(
      callTools(email('a@x.io'), email('b@x.io'), remove('/etc/y')),
      opts,
    );
    // `always` on one send_email approves the other pending send_email too.
    paused.state
      .approve('call_1_0', { always: true })
      .reject('call_1_2', { always: true, message: 'never' });
    const done = await agent.resume(paused.state);
    expect(done.interrupted).toBe(false);
    expect(counters.executed).toEqual({ send_email: 2 });

    const view = await agent.runtimeFor(store).getSession(key);
    expect(view.standingDecisions).toEqual({ send_email: 'approve', delete_file: 'reject' });

    const later = await agent.run(callTools(email('c@x.io'), remove('/etc/z')), opts);
    expect(later.interrupted).toBe(false);
    expect(counters.executed).toEqual({ send_email: 3 });
    const results = resultsOf(
      model.calls[model.calls.length - 1]!.items.slice(later.state.data.historyStart),
    );
    expect(results.map((r) => [r.name, r.isError === true])).toEqual([
      ['send_email', false],
      ['delete_file', true],
    ]);
  });

  it('raises UnknownCallError for a decision on a call that is not pending, and changes nothing', async () => {
    const { store } = await temps.open();
    const { agent } = approvalAgent(store);
    const paused = await agent.run(callTools(email('bob@example.com')), opts);

    expect(() => paused.state.approve('call_nope')).toThrow(UnknownCallError);
    expect(() => paused.state.reject('call_nope')).toThrow(
      expect.objectContaining({ code: 'UNKNOWN_CALL' }),
    );

    // A RunState forged around the check still fails at resume, before anything is saved.
    const before = await store.load(key);
    const forged = new RunState({
      ...paused.state.data,
      decisions: [{ callId: 'call_nope', approve: true }],
    });
    await expect(agent.resume(forged)).rejects.toMatchObject({
      code: 'UNKNOWN_CALL',
      sessionId: key.sessionId,
    });
    expect((await store.load(key)).version).toBe(before.version);
    expect((await agent.runtimeFor(store).getSession(key)).run?.state).toBe('awaitingApproval');
  });

  it('resumes in a new process: the child approves and the run continues to the end', async () => {
    const temp = await temps.open();
    const { agent, counters } = approvalAgent(temp.store);
    const paused = await agent.run(callTools(remove('/etc/hosts'), email('bob@example.com')), opts);
    expect(paused.interruptions).toHaveLength(2);
    const stateFile = join(temp.folder, 'state.json');
    await writeFile(stateFile, JSON.stringify(paused.state));
    await temp.store.close();

    const report = await runApprovalChild(temp.path, {
      stateFile,
      decisions: [
        { callId: 'call_1_0', approve: true },
        { callId: 'call_1_1', approve: false, message: 'Do not email Bob.' },
      ],
    });
    expect(report.pid).not.toBe(process.pid);
    expect(report.interrupted).toBe(false);
    expect(report.output).toBe(
      'Done. delete_file: deleted /etc/hosts | send_email (error): Do not email Bob.',
    );
    expect(report).toMatchObject({ checked: 0, modelCalls: 1, executed: { delete_file: 1 } });
    expect(counters.checked).toBe(1);

    const reopened = await LevelSessionStore.open({ path: temp.path });
    temps.defer(() => reopened.close());
    const after = approvalAgent(reopened, { counters: newCounters() });
    const view = await after.agent.runtimeFor(reopened).getSession(key);
    expect(view.state).toBe('active.idle');
    expect(view.run).toBeUndefined();
    expect(view.lastRun).toMatchObject({ status: 'completed', runId: paused.id, turn: 2 });
    expect((await reopened.readHistory(key)).map((i) => i.type)).toEqual([
      'message',
      'tool_call',
      'tool_call',
      'tool_result',
      'tool_result',
      'message',
    ]);
  });
});
