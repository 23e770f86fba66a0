import { z } from 'zod';
import {
  Agent,
  tool,
  type AgentOptions,
  type SessionKey,
  type SessionStore,
} from '../../src/index.js';
import { ScriptedModel } from '../../src/testing.js';
import { deferred, until } from './async.js';

/**
 * The sessions the run-status tests (issue 26) read on every surface: one paused for an approval
 * with tokens used, one failed with a typed error (a run its process left crashed is in
 * crashed-folder.ts, which runs a child process).
 */

const danger = tool({
  name: 'danger',
  description: 'needs a human',
  parameters: z.object({ target: z.string() }),
  needsApproval: true,
  execute: ({ target }) => `done: ${target}`,
});

/** An agent whose run pauses on an approval after one model call of 100 in / 20 out tokens. */
export function pausingAgent(store: SessionStore): Agent {
  return new Agent({
    name: 'a',
    model: new ScriptedModel([{ toolCalls: [{ name: 'danger', arguments: { target: 'x' } }] }], {
      defaultUsage: { inputTokens: 100, outputTokens: 20 },
    }),
    tools: [danger],
    store,
  });
}

/** An agent whose first run fails (its output is not the JSON `outputType` asks for). */
export function failingAgent(store: SessionStore, ...later: string[]) {
  return new Agent({
    name: 'w',
    model: new ScriptedModel([{ text: 'not json' }, ...later.map((text) => ({ text }))]),
    outputType: z.object({ city: z.string() }),
    store,
  });
}

/** alice's `paused` (an approval, 120 tokens so far) and `failed` (an invalid output). */
export async function writePausedAndFailed(store: SessionStore): Promise<Agent> {
  const pausing = pausingAgent(store);
  await pausing.run('go', { sessionId: 'paused', userId: 'alice' });
  await failingAgent(store)
    .run('weather?', { sessionId: 'failed', userId: 'alice' })
    .catch(() => undefined);
  return pausing;
}

/**
 * Starts a run of `key` whose model call waits until `finish()`; resolves once the run is
 * stored with that call in flight.
 */
export async function runInFlight(
  store: SessionStore,
  key: SessionKey,
  options: Pick<AgentOptions<string>, 'clock' | 'lease'> = {},
) {
  const gate = deferred();
  let asked = 0;
  const agent = new Agent({
    name: 'live',
    model: new ScriptedModel(async () => {
      asked += 1;
      await gate.promise;
      return { text: 'ok' };
    }),
    store,
    ...options,
  });
  const running = agent.run('hi', { sessionId: key.sessionId, userId: key.userId });
  await until(
    async () => asked === 1 && (await store.load(key).catch(() => undefined)) !== undefined,
  );
  return {
    agent,
    finish: async () => {
      gate.resolve();
      await running;
    },
  };
}
