import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WhileBusy } from '../../src/index.js';
import { PostgresSessionStore } from '../../src/postgres.js';
import { contentText } from '../../src/items/item.js';
import { until } from '../helpers/async.js';
import { JsonLineChild, type ChildEvent } from '../helpers/json-line-child.js';
import { usePostgres } from '../helpers/postgres-tests.js';
import { bySize } from '../helpers/test-tier.js';

/**
 * Issue 40, "`whileBusy` across processes keeps its word": two processes (A and B,
 * test/helpers/busy-rounds-worker.ts) on one PostgreSQL schema. Each round, A starts a run that
 * waits (a model call, or a tool call for `'steer'`), then 2, 3 or 10 messages are sent at once
 * with one policy: from B (across processes), from A (in one process), or from both in turn.
 * Every message is answered exactly once: refused (`'reject'`), answered or stored to be
 * answered once (`'queue'`, `'steer'`), answered or cancelled by a later one with its message
 * in the history (`'interrupt'`: the waiting run always ends cancelled). With `'queue'` and
 * `'steer'`, half the rounds let the run go on while the messages are sent. The rounds wait on
 * the processes' events and the store, never on time.
 */
const pgt = usePostgres();
/** Rounds per message count: the quick tier runs 30 rounds a policy, fewer of 10 messages. */
const ROUNDS = bySize({
  quick: { 2: 12, 3: 12, 10: 6 },
  long: { 2: 30, 3: 30, 10: 30 },
});
/** Rounds run at once, each on its own session. */
const AT_ONCE = 3;
const USER = 'u1';

let a: JsonLineChild;
let b: JsonLineChild;
let store: PostgresSessionStore;

beforeAll(async () => {
  const schema = pgt.schema('busy_rounds');
  a = await JsonLineChild.start('test/helpers/busy-rounds-worker.ts', [pgt.url, schema, 'proc-a']);
  b = await JsonLineChild.start('test/helpers/busy-rounds-worker.ts', [pgt.url, schema, 'proc-b']);
  expect(await a.next('ready')).toMatchObject({ event: 'ready' });
  expect(await b.next('ready')).toMatchObject({ event: 'ready' });
  store = await PostgresSessionStore.open({ connectionString: pgt.url, schema });
}, 60_000);
afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  await store?.close();
});

/** The outcomes (`answered`, `failed`) both processes printed for a message of a session. */
const outcomes = (session: string, text: string): ChildEvent[] =>
  [a, b].flatMap((c) =>
    c.events.filter(
      (e) =>
        (e.event === 'answered' || e.event === 'failed') &&
        e.session === session &&
        e.text === text,
    ),
  );

/** The texts of the model calls both processes made for a session. */
const modelCalls = (session: string): string[] =>
  [a, b].flatMap((c) =>
    c.events.filter((e) => e.event === 'model' && e.session === session).map((e) => e.text),
  ) as string[];

async function history(session: string): Promise<string[]> {
  const items = await store.readHistory({ sessionId: session, userId: USER });
  return items.map((i) => (i.type === 'message' ? contentText(i.content) : i.type));
}

const inbox = async (session: string): Promise<number> =>
  (await store.queuedMessages({ sessionId: session, userId: USER })).length;

const count = (list: string[], value: string): number => list.filter((v) => v === value).length;

/**
 * Waits (yielding, no sleep) until `check` holds; a message lost never makes it hold, and the
 * failure then shows what the session got. The bound is wide: the machine may be loaded.
 */
async function wait(session: string, check: () => boolean | Promise<boolean>): Promise<void> {
  try {
    await until(check, session, 60_000);
  } catch (error) {
    const events = [a, b].map((c) => c.events.filter((e) => e.session === session));
    const got = { a: events[0], b: events[1], inbox: await inbox(session) };
    const texts = JSON.stringify(await history(session));
    throw new Error(`${(error as Error).message}: ${JSON.stringify(got)}; history ${texts}`, {
      cause: error,
    });
  }
}

/** One round: A's waiting run, then `size` messages at once; what each got, checked. */
async function round(policy: WhileBusy, size: number, n: number): Promise<void> {
  const session = `${policy}-${size}-${n}`;
  const first = policy === 'steer' ? 'hold-tool' : 'hold';
  a.send('run', { session, text: first });
  await wait(session, () => a.events.some((e) => e.event === 'held' && e.session === session));
  const messages = Array.from({ length: size }, (_, i) => `m${i}`);
  // The run is in A. Rounds 0 (mod 3): every message from B; 1: every message from A (one
  // process); 2: from B and A in turn.
  const from = (i: number) => [b, a, i % 2 === 0 ? b : a][n % 3]!;
  messages.forEach((text, i) => from(i).send('run', { session, text, whileBusy: policy }));
  const answeredAll = (...texts: string[]) =>
    wait(session, () => texts.every((t) => outcomes(session, t).length > 0));
  if (policy === 'reject') {
    await answeredAll(...messages);
    a.send('release', { session });
    await answeredAll(first);
  } else if (policy === 'interrupt') {
    await answeredAll(first, ...messages);
  } else {
    // Rounds 0, 1 (mod 4): every message stored while the run waits, then the run goes on and
    // they are taken; rounds 2, 3: the run goes on at once, its end racing the messages.
    if (n % 4 < 2) {
      await wait(session, async () => (await inbox(session)) === size);
    }
    a.send('release', { session });
    await answeredAll(first, ...messages);
    await wait(session, async () => {
      if ((await inbox(session)) > 0) return false;
      const texts = await history(session);
      const last = texts.at(-1) ?? '';
      return messages.every((m) => texts.includes(m)) && last.startsWith('answer to ');
    });
  }
  const texts = await history(session);
  const calls = modelCalls(session);
  const got = (text: string) => {
    const [one, ...more] = outcomes(session, text);
    expect(more, `${session} ${text}: answered once`).toEqual([]);
    return one!;
  };
  expect(count(texts, first), `${session}: ${first} in history`).toBe(1);
  if (policy === 'reject') {
    for (const m of messages)
      expect(got(m), `${session} ${m}`).toMatchObject({ code: 'RUN_IN_PROGRESS' });
    expect(got(first)).toMatchObject({ event: 'answered', output: 'answer to hold' });
    expect(texts).toEqual(['hold', 'answer to hold']);
    expect(calls).toEqual(['hold']);
    return;
  }
  for (const m of messages) expect(count(texts, m), `${session}: ${m} in history once`).toBe(1);
  if (policy === 'interrupt') {
    expect(got(first), `${session}: the waiting run`).toMatchObject({ code: 'RUN_CANCELLED' });
    expect(texts).not.toContain('answer to hold');
    for (const m of messages) {
      const outcome = got(m);
      if (outcome.event === 'answered') {
        expect(outcome.output).toBe(`answer to ${m}`);
        expect(count(texts, `answer to ${m}`), `${session}: ${m} answered once`).toBe(1);
      } else {
        expect(outcome, `${session} ${m}`).toMatchObject({ code: 'RUN_CANCELLED' });
        expect(texts, `${session} ${m}`).not.toContain(`answer to ${m}`);
      }
      expect(count(calls, m), `${session}: ${m}'s model calls`).toBeLessThanOrEqual(1);
    }
    expect(
      messages.some((m) => got(m).event === 'answered'),
      `${session}: one answered`,
    ).toBe(true);
    return;
  }
  expect(await inbox(session)).toBe(0);
  for (const m of messages) {
    const outcome = got(m);
    if (outcome.event === 'failed')
      expect(outcome, `${session} ${m}`).toMatchObject({ code: 'MESSAGE_QUEUED' });
  }
  if (policy === 'queue') {
    expect(got(first)).toMatchObject({ event: 'answered', output: 'answer to hold' });
    for (const m of messages) {
      expect(count(texts, `answer to ${m}`), `${session}: ${m} answered once`).toBe(1);
      expect(count(calls, m), `${session}: ${m}'s model calls`).toBe(1);
      const outcome = got(m);
      if (outcome.event === 'answered') expect(outcome.output).toBe(`answer to ${m}`);
    }
  } else {
    expect(got(first)).toMatchObject({ event: 'answered' });
    expect(texts.slice(0, 3)).toEqual(['hold-tool', 'tool_call', 'tool_result']);
  }
}

describe.each(['reject', 'queue', 'steer', 'interrupt'] as const)(
  "whileBusy '%s' across two processes on PostgreSQL",
  (policy) => {
    it.each(Object.entries(ROUNDS).map(([size, rounds]) => [Number(size), rounds]))(
      '%i messages at once, %i rounds: each answered exactly once',
      async (size, rounds) => {
        // A few sessions at once (each round its own session): the same races, in less time.
        for (let n = 0; n < rounds; n += AT_ONCE) {
          const batch = Array.from({ length: Math.min(AT_ONCE, rounds - n) }, (_, i) => n + i);
          await Promise.all(batch.map((m) => round(policy, size, m)));
        }
      },
      300_000,
    );
  },
);
