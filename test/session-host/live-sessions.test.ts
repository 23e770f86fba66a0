import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { InspectionEvent } from 'xstate';
import {
  Agent,
  SessionConflictError,
  SessionRuntime,
  cancelRun,
  continueRun,
  deleteSession,
  resumeSession,
  sendMessage,
  suspendSession,
  tool,
  writeMetadata,
  type SessionKey,
} from '../../src/index.js';
import { FakeClock, ScriptedModel, type ScriptedResponse } from '../../src/testing.js';
import type { KvSessionStore } from '../../src/persistence/kv/kv-session-store.js';
import type { AnyTool } from '../../src/tools/tool.js';
import { sealValue } from '../../src/persistence/sealed-value.js';
import { sinceLastUser } from '../helpers/approval-agent.js';
import {
  alice,
  bob,
  dumpBackend,
  echoModel,
  lastUserText,
  texts,
} from '../helpers/session-fixtures.js';
import { TempStores } from '../helpers/temp-store.js';

/*
 * A session kept live between its actions (`liveSessions`) must change nothing a caller or the
 * store can see: the same scripted conversations, run with live sessions off and on, write the
 * same LevelDB contents and give the same results and runtime events. And a live session is
 * used only while the store holds exactly what it saved: another runtime's write, or a failed
 * save, drops it and the session is restored from the store.
 */

const temps = new TempStores();
afterEach(() => temps.cleanupAll());

/**
 * A pure function of the request: a user message holding a JSON array calls those tools; once
 * they have results, or for plain text, it answers with text.
 */
function scriptModel(): ScriptedModel {
  return new ScriptedModel((request): ScriptedResponse => {
    const said = lastUserText(request);
    const results = sinceLastUser(request.items).filter((i) => i.type === 'tool_result');
    if (!said.startsWith('[')) return { text: `reply: ${said} (${request.items.length} items)` };
    if (results.length === 0)
      return { toolCalls: JSON.parse(said) as ScriptedResponse['toolCalls'] };
    return {
      text: `done: ${results.map((r) => r.type === 'tool_result' && r.output).join(' | ')}`,
    };
  });
}

const tools = [
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
];

const calls = (...c: { name: string; arguments: Record<string, unknown> }[]) => JSON.stringify(c);
const lookup = (word: string) => calls({ name: 'lookup', arguments: { word } });
const email = (to: string) => calls({ name: 'send_email', arguments: { to } });

type Step = [SessionKey, Parameters<SessionRuntime['execute']>[1]];

/** The script: three sessions of two users, interleaved; every kind of action at least once. */
function script(observe: { progress: (e: unknown) => void; onRunSnapshot: (s: unknown) => void }) {
  const [a, b, c] = [alice('a'), bob('b'), alice('c')];
  const steps: Step[] = [
    [a, sendMessage('hello')],
    [b, sendMessage(lookup('cat'), observe)],
    [a, sendMessage(lookup('dog'))],
    [c, sendMessage(email('ann'))], // pauses for approval
    [a, sendMessage('again', observe)],
    [c, continueRun({ decisions: [{ callId: 'call_1_0', approve: true }] })],
    [c, sendMessage('after approval')],
    [b, sendMessage(email('bo'))], // pauses
    [b, cancelRun()],
    [b, sendMessage('after cancel', observe)],
    [a, writeMetadata({ plan: 'pro' })],
    [a, writeMetadata({ plan: 'pro' })], // changes nothing: saves nothing, its audit entry too
    [a, sendMessage('with metadata')],
    [c, suspendSession()],
    [c, sendMessage('while suspended')], // fails: a suspended session takes no message
    [c, resumeSession()],
    [c, sendMessage('resumed')],
    [a, deleteSession()],
    [a, sendMessage('after delete')], // fails: deleted
    [b, sendMessage(lookup('owl'))],
    [b, sendMessage('last')],
  ];
  return steps;
}

const ULID = /\b[0-9A-HJKMNP-TV-Z]{26}\b/g;

/**
 * The store's raw contents, comparable across two runs of the script: every value's seal is
 * checked, then removed (it is a CRC over the key and the JSON, so it changes with the ids in
 * them), and each id the runtime draws at random (run ids, audit entry ids, the lease owner:
 * ULIDs, random by design) becomes `<id N>`, N counted in the order of first appearance after
 * sorting the entries with ids blanked. Everything else is compared byte for byte: times come
 * from the one injected clock, which the script moves the same way in both runs.
 */
function comparable(entries: [string, string][]): [string, string][] {
  for (const [key, value] of entries) {
    const json = value.slice(9);
    expect(value, key).toBe(sealValue(key, json));
  }
  const blank = (t: string) => t.replace(ULID, '<id>');
  const sorted = entries
    .map(([k, v]) => [k, v.slice(9)] as [string, string])
    .sort((x, y) => (blank(x.join('\n')) < blank(y.join('\n')) ? -1 : 1));
  const names = new Map<string, string>();
  const name = (t: string) =>
    t.replace(ULID, (id) => {
      if (!names.has(id)) names.set(id, `<id ${names.size}>`);
      return names.get(id)!;
    });
  return sorted.map(([k, v]) => [name(k), name(v)]);
}

interface Outcome {
  /** Results and errors of each step, runtime events and stream events, ids named in order. */
  seen: string[];
  store: [string, string][];
  /** How many session actors were created (restored or new): only counted when inspected. */
  sessionActors: number;
}

/** Runs the script on a fresh LevelDB store, `live` sessions kept (0: none). */
async function runScript(live: number, inspected: boolean): Promise<Outcome> {
  const { store } = await temps.open();
  const clock = new FakeClock();
  const agent = new Agent({ name: 'scripted', model: scriptModel(), tools, store, clock });
  const runtime = new SessionRuntime({ store, agent, liveSessions: live });
  const seen: unknown[] = [];
  for (const type of [
    'SessionLoaded',
    'SessionActionExecuted',
    'SessionSaved',
    'SessionLoadFailed',
    'SessionSaveFailed',
  ] as const) {
    runtime.on(type, (event) => seen.push(event));
  }
  let sessionActors = 0;
  if (inspected) {
    runtime.on('Inspection', ({ event }: { event: InspectionEvent }) => {
      const src = (event.actorRef as { src?: unknown }).src;
      if (event.type === '@xstate.actor' && typeof src !== 'string') sessionActors += 1;
    });
  }
  const observe = {
    progress: (e: unknown) => seen.push({ progress: e }),
    onRunSnapshot: (s: unknown) => {
      const { value, context } = s as { value: unknown; context: unknown };
      seen.push({ run: { value, context } });
    },
  };
  for (const [key, action] of script(observe)) {
    clock.advance(1_000);
    try {
      seen.push({ result: await runtime.execute(key, action) });
    } catch (error) {
      const e = error as Error & { code?: string };
      seen.push({ error: { name: e.name, code: e.code, message: e.message } });
    }
  }
  const texts = seen.map((s) =>
    JSON.stringify(s, (_k, v: unknown) => (v instanceof Error ? `${v.name}: ${v.message}` : v)),
  );
  const ids = new Map<string, string>();
  const named = texts.map((t) =>
    t.replace(ULID, (id) => {
      if (!ids.has(id)) ids.set(id, `<id ${ids.size}>`);
      return ids.get(id)!;
    }),
  );
  return { seen: named, store: comparable(await dumpBackend(store)), sessionActors };
}

describe('live sessions (a session actor kept between its actions)', () => {
  it.each([false, true])(
    'write the same bytes and give the same results and events as restoring every time (inspected: %s)',
    async (inspected) => {
      const off = await runScript(0, inspected);
      const on = await runScript(1000, inspected);
      expect(on.store).toEqual(off.store);
      expect(on.seen).toEqual(off.seen);
      expect(off.store.length).toBeGreaterThan(50);
      const errors = off.seen.filter((s) => s.startsWith('{"error"'));
      expect(
        errors.map((e) => (JSON.parse(e) as { error: { message: string } }).error.message),
      ).toEqual([
        'Action "sendMessage" is not allowed while session "c" is suspended',
        'Action "sendMessage" is not allowed while session "a" is deleted',
      ]);
      if (inspected) {
        // Off: one session actor per action that gets to its session. On: only where no live
        // one could be used (a new session, after a paused run, a failed action, a delete).
        expect(off.sessionActors).toBe(19); // the two refused actions build none
        expect(on.sessionActors).toBeGreaterThan(0);
        expect(on.sessionActors).toBeLessThan(off.sessionActors / 2);
      }
    },
  );
});

/** A LevelDB store, two runtimes on it (two processes' worth), session actors counted per runtime. */
async function twoRuntimes(model: () => ScriptedModel = echoModel, extra: AnyTool[] = []) {
  const { store } = await temps.open();
  const clock = new FakeClock();
  const created = [0, 0];
  const runtimes = [0, 1].map((i) => {
    const agent = new Agent({
      name: 'echo',
      model: model(),
      tools: [...tools, ...extra],
      store,
      clock,
    });
    const runtime = new SessionRuntime({ store, agent });
    runtime.on('Inspection', ({ event }) => {
      const src = (event.actorRef as { src?: unknown }).src;
      if (event.type === '@xstate.actor' && typeof src !== 'string') created[i]! += 1;
    });
    return runtime;
  }) as [SessionRuntime, SessionRuntime];
  return { store, clock, runtimes, created };
}

const said = async (runtime: SessionRuntime, key: SessionKey) =>
  texts((await runtime.execute(key, sendMessage('What did I just say?'))).newItems);

describe('a live session is used only while the store holds what it saved', () => {
  it('is used again by its runtime when nobody else wrote', async () => {
    const { runtimes, created } = await twoRuntimes();
    const [one] = runtimes;
    await one.execute(alice('s'), sendMessage('first'));
    await one.execute(alice('s'), sendMessage('second'));
    expect(await said(one, alice('s'))).toEqual(['You said: "second"']);
    expect(created[0]).toBe(1); // created once, then kept live
  });

  it("is dropped after another runtime's write: the next action reads the new record and history", async () => {
    const { store, runtimes, created } = await twoRuntimes();
    const [one, two] = runtimes;
    const key = alice('s');
    await one.execute(key, sendMessage('from one'));
    await two.execute(key, sendMessage('from two'));
    expect(await said(one, key)).toEqual(['You said: "from two"']); // no stale history
    expect(created[0]).toBe(2); // restored: its live actor was dropped
    await two.execute(key, writeMetadata({ by: 'two' }));
    const result = await one.execute(key, sendMessage('and again'));
    expect(result.id).toBeDefined();
    const info = await one.getSessionInfo(key);
    expect((await one.getSession(key)).config.metadata).toEqual({ by: 'two' }); // no lost update
    expect(info.version).toBe((await (store as KvSessionStore).load(key)).version);
    expect(texts((await store.readHistory(key, 0, info.historyLength)).slice(-2))).toEqual([
      'and again',
      'reply: and again',
    ]);
    expect(created[0]).toBe(3);
  });

  it("is dropped after another agent's write on the same store", async () => {
    const { store, clock, runtimes, created } = await twoRuntimes();
    const [one] = runtimes;
    const other = new SessionRuntime({
      store,
      agent: new Agent({ name: 'echo', model: echoModel(), store, clock, cachedSessions: 1 }),
    });
    const key = bob('s');
    await one.execute(key, sendMessage('mine'));
    await other.execute(key, sendMessage('theirs'));
    expect(await said(one, key)).toEqual(['You said: "theirs"']);
    expect(created[0]).toBe(2);
  });

  it('is dropped when its save fails (a lost version check mid-run); the next action restores', async () => {
    let during: (() => Promise<unknown>) | undefined;
    const racer = tool({
      name: 'racer',
      description: 'Lets another writer save while it runs',
      parameters: z.object({}),
      execute: async () => {
        await during?.();
        return 'raced';
      },
    });
    const { store, runtimes, created } = await twoRuntimes(scriptModel, [racer]);
    const [one] = runtimes;
    const key = alice('s');
    await one.execute(key, sendMessage('hello'));
    const paused = await one.execute(key, sendMessage(email('x')));
    expect(paused.interruptions).toHaveLength(1);
    await one.execute(key, cancelRun()); // restored (a paused run is not kept), then kept at rest
    expect(created[0]).toBe(2);
    // Another process's write while the run is in flight: a save of the record, version + 1.
    during = async () => {
      const { record } = await store.loadForUpdate(key);
      await store.save({
        record: { ...record, updatedAt: record.updatedAt + 7 },
        items: [],
        journal: [],
      });
    };
    const race = calls({ name: 'racer', arguments: {} });
    await expect(one.execute(key, sendMessage(race))).rejects.toBeInstanceOf(SessionConflictError);
    during = undefined;
    // The stored run is the other writer's record of the run in flight: cancelled from it.
    const stored = await store.load(key);
    await one.execute(key, cancelRun());
    expect(created[0]).toBe(3); // restored after the failed save
    expect((await one.getSessionInfo(key)).version).toBe(stored.version + 1);
    const after = await one.execute(key, sendMessage('after'));
    expect(texts(after.newItems)).toEqual([expect.stringMatching(/^reply: after/)]);
    expect(created[0]).toBe(3); // and kept live again
    const info = await one.getSessionInfo(key);
    expect(info.version).toBe(stored.version + 3);
    const history = texts(await store.readHistory(key, 0, info.historyLength));
    expect(history.slice(0, 2)).toEqual(['hello', expect.stringMatching(/^reply: hello/)]);
    expect(history.slice(-2)).toEqual(['after', expect.stringMatching(/^reply: after/)]);
  });

  it('is dropped when a save fails in the store (a batch that throws)', async () => {
    let failNext = false;
    const { store } = await temps.open({
      onBatchOp: () => {
        if (failNext) {
          failNext = false;
          throw new Error('disk full');
        }
      },
    });
    const clock = new FakeClock();
    let created = 0;
    const runtime = new SessionRuntime({
      store,
      agent: new Agent({ name: 'echo', model: echoModel(), store, clock }),
    });
    runtime.on('Inspection', ({ event }) => {
      const src = (event.actorRef as { src?: unknown }).src;
      if (event.type === '@xstate.actor' && typeof src !== 'string') created += 1;
    });
    const key = alice('s');
    await runtime.execute(key, sendMessage('one'));
    failNext = true;
    await expect(runtime.execute(key, sendMessage('lost'))).rejects.toThrow('disk full');
    expect(await said(runtime, key)).toEqual(['You said: "one"']);
    expect(created).toBe(2);
  });
});
