import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent, RunCancelledError, tool, type RunStreamEvent } from '../../src/index.js';
import { ScriptedModel } from '../../src/testing.js';
import { callTool, dangerTool, deferred } from '../helpers/session-fixtures.js';
import { TempStores } from '../helpers/temp-store.js';

/**
 * Streams all the way (issue 9, point 9): a resumed run can be streamed, and leaving the
 * iteration early cancels the run unless the stream was detached.
 */
const temps = new TempStores();
afterEach(() => temps.cleanupAll());

function blockingAgent(store: Awaited<ReturnType<TempStores['open']>>['store']) {
  const release = deferred();
  const aborted: boolean[] = [];
  const slow = tool({
    name: 'slow',
    description: 'Waits until released',
    parameters: z.object({}),
    execute: async (_args, { signal }) => {
      await Promise.race([
        release.promise,
        new Promise((resolve) => signal.addEventListener('abort', resolve)),
      ]);
      aborted.push(signal.aborted);
      return signal.aborted ? 'stopped' : 'finished';
    },
  });
  const model = new ScriptedModel((request) =>
    request.items.some((i) => i.type === 'tool_result') ? { text: 'done' } : callTool('slow'),
  );
  return { agent: new Agent({ name: 'a', model, store, tools: [slow] }), release, aborted };
}

describe('streams', () => {
  it('breaking out of the iteration cancels the run', async () => {
    const { store } = await temps.open();
    const { agent, aborted } = blockingAgent(store);
    const stream = agent.stream('go', { sessionId: 's' });
    for await (const event of stream) {
      if (event.type === 'tool_call_started') break;
    }
    await expect(stream.result).rejects.toBeInstanceOf(RunCancelledError);
    expect(aborted).toEqual([true]);
    const view = await agent.runtimeFor(store).getSession('s');
    expect(view.lastRun?.status).toBe('cancelled');
    expect(view.state).toBe('active.idle');
  });

  it('a detached stream leaves the run going; its result still arrives', async () => {
    const { store } = await temps.open();
    const { agent, release, aborted } = blockingAgent(store);
    const stream = agent.stream('go', { sessionId: 's' });
    stream.detach();
    for await (const event of stream) {
      if (event.type === 'tool_call_started') break;
    }
    release.resolve();
    const result = await stream.result;
    expect(result.output).toBe('done');
    expect(aborted).toEqual([false]);
  });

  it('streamResume streams the rest of a run resumed with approval decisions', async () => {
    const { store } = await temps.open();
    const model = new ScriptedModel([callTool('danger'), { text: 'all done' }]);
    const agent = new Agent({ name: 'a', model, store, tools: [dangerTool] });
    const paused = await agent.run('go', { sessionId: 's' });
    expect(paused.interruptionReason).toBe('approval');
    const events: RunStreamEvent[] = [];
    const stream = agent.streamResume(paused.state.approve(paused.interruptions[0]!.callId));
    for await (const event of stream) events.push(event);
    expect(events.map((e) => e.type)).toEqual(
      expect.arrayContaining(['tool_call_started', 'tool_call_finished', 'run_finished']),
    );
    expect(events.filter((e) => e.type === 'text_delta').length).toBeGreaterThan(0);
    const last = events.at(-1);
    expect(last?.type === 'run_finished' && last.result.output).toBe('all done');
    expect((await stream.result).output).toBe('all done');
    expect(() => agent.streamResume('')).toThrow(TypeError);
  });
});
