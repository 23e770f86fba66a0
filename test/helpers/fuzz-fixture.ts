import { z } from 'zod';
import {
  Agent,
  SessionRuntime,
  changeBudget,
  completeSession,
  deleteSession,
  failSession,
  forkSession,
  sendMessage,
  suspendSession,
  tool,
  type SessionKey,
  type SessionRecord,
  type SessionStore,
} from '../../src/index.js';
import type { KvSessionStore } from '../../src/persistence/kv/kv-session-store.js';
import { FakeClock, ScriptedModel, type ScriptedResponse } from '../../src/testing.js';
import { callTools, sinceLastUser } from './approval-agent.js';
import { deferred, dumpBackend, lastUserText } from './session-fixtures.js';

/**
 * The base store of the fuzz test: sessions of two named users and the anonymous bucket in
 * every lifecycle state, built through the public API on a real LevelDB store, then dumped
 * raw. Everything in it is deterministic except the run ids (ULIDs).
 */

/** One session of the base store and the lifecycle state it was left in. */
export interface FuzzSession {
  key: SessionKey;
  state: string;
}

export interface FuzzBase {
  /** Every raw key and value of the backend. */
  entries: Map<string, string>;
  sessions: FuzzSession[];
  owners: (string | undefined)[];
  /** The fake time the fuzz actions run at. */
  now: number;
}

const APPROVAL_TIMEOUT_MS = 3_600_000;

/**
 * The fuzz model: a pure function of the request, so a step run again answers the same. A
 * user message holding a JSON array calls those tools; once they have results, or for plain
 * text, it answers with text.
 */
export function fuzzModel(): ScriptedModel {
  return new ScriptedModel((request): ScriptedResponse => {
    const said = lastUserText(request);
    const results = sinceLastUser(request.items).filter((i) => i.type === 'tool_result');
    if (!said.startsWith('[')) return { text: `reply: ${said}` };
    if (results.length === 0) {
      return { toolCalls: JSON.parse(said) as ScriptedResponse['toolCalls'] };
    }
    return {
      text: `done: ${results.map((r) => r.type === 'tool_result' && r.output).join(' | ')}`,
    };
  });
}

/**
 * Deterministic tools: `lookup`, `send_email` (always needs approval) and `slow`, which waits
 * for `gate` when one is given (a gate never opened leaves its run in flight: the crash).
 */
export function fuzzTools(gate?: Promise<void>) {
  return [
    tool({
      name: 'lookup',
      description: 'Looks a word up',
      parameters: z.object({ word: z.string() }),
      execute: ({ word }) => `${word}: found`,
    }),
    tool({
      name: 'send_email',
      description: 'Sends an email',
      parameters: z.object({ to: z.string() }),
      needsApproval: true,
      execute: ({ to }) => `sent to ${to}`,
    }),
    tool({
      name: 'slow',
      description: 'Takes its time',
      parameters: z.object({}),
      execute: async () => {
        await gate;
        return 'slow: finished';
      },
    }),
  ];
}

/** The agent the fuzz actions run with (and the base store was built with, minus the gate). */
export function fuzzAgent(store: SessionStore, clock: FakeClock, gate?: Promise<void>): Agent {
  return new Agent({
    name: 'fuzzer',
    model: fuzzModel(),
    tools: fuzzTools(gate),
    store,
    clock,
    approvalTimeoutMs: APPROVAL_TIMEOUT_MS,
  });
}

const lookup = (word: string) => ({ name: 'lookup', arguments: { word } });

/** Builds the base sessions in `store` and returns its raw contents. */
export async function buildFuzzBase(store: KvSessionStore): Promise<FuzzBase> {
  const clock = new FakeClock();
  const never = deferred();
  const runtime = new SessionRuntime({ store, agent: fuzzAgent(store, clock, never.promise) });
  const sessions: FuzzSession[] = [];
  const step = async (key: SessionKey, action: Parameters<SessionRuntime['execute']>[1]) => {
    clock.advance(1_000);
    await runtime.execute(key, action);
  };
  const alice = (sessionId: string) => ({ sessionId, userId: 'alice' });
  const bob = (sessionId: string) => ({ sessionId, userId: 'bob' });
  const anon = (sessionId: string) => ({ sessionId, userId: undefined });

  const chat = alice('chat');
  await step(chat, sendMessage('hello'));
  await step(chat, sendMessage(callTools(lookup('apple'), lookup('pear'))));
  await step(chat, sendMessage('thanks'));
  sessions.push({ key: chat, state: 'idle' });

  await step(chat, forkSession('chat-fork'));
  await step(alice('chat-fork'), sendMessage('forked'));
  sessions.push({ key: alice('chat-fork'), state: 'idle (fork)' });

  const approval = alice('approval');
  await step(
    approval,
    sendMessage(callTools({ name: 'send_email', arguments: { to: 'bob' } }, lookup('fig'))),
  );
  sessions.push({ key: approval, state: 'awaiting approval' });

  const budget = alice('budget');
  await step(budget, sendMessage('warm up'));
  await step(budget, changeBudget({ maxTurns: 2 }));
  await step(budget, sendMessage(callTools(lookup('kiwi'))));
  sessions.push({ key: budget, state: 'interrupted by budget' });

  for (const [id, end, state] of [
    ['parked', suspendSession(), 'suspended'],
    ['done', completeSession(), 'completed'],
    ['failed', failSession(), 'failed'],
    ['gone', deleteSession(), 'deleted'],
  ] as const) {
    await step(bob(id), sendMessage(callTools(lookup(id))));
    await step(bob(id), end);
    sessions.push({ key: bob(id), state });
  }

  await step(anon('note'), sendMessage(callTools(lookup('plum'), lookup('date'))));
  sessions.push({ key: anon('note'), state: 'idle' });

  // The crash: `slow` never finishes, so the snapshot saved with `lookup` done and `slow` in
  // flight is what a killed process leaves behind.
  const crashed = anon('crashed');
  const inFlight = deferred();
  const off = runtime.on('SessionSaved', ({ key, record }) => {
    if (key.sessionId === crashed.sessionId && lookupDoneSlowRunning(record)) inFlight.resolve();
  });
  clock.advance(1_000);
  runtime
    .execute(crashed, sendMessage(callTools(lookup('lime'), { name: 'slow', arguments: {} })))
    .catch(() => undefined);
  await inFlight.promise;
  off();
  sessions.push({ key: crashed, state: 'mid-run (crashed)' });

  const entries = new Map(await dumpBackend(store));
  return { entries, sessions, owners: ['alice', 'bob', undefined], now: clock.now() + 1_000 };
}

function lookupDoneSlowRunning(record: SessionRecord): boolean {
  const run = (
    record.snapshot as {
      children: {
        run?: { snapshot: { value: unknown; context: { calls: { done: boolean }[] } } };
      };
    }
  ).children.run?.snapshot;
  const calls = run?.context.calls ?? [];
  return run?.value === 'tools' && calls.length === 2 && calls[0]!.done && !calls[1]!.done;
}
