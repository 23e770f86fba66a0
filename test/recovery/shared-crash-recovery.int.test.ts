import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent, RecoveryExhaustedError, tool, type SessionStore } from '../../src/index.js';
import { ScriptedModel } from '../../src/testing.js';
import { storedRun, type StoredRun } from '../../src/runs/stored-run.js';
import { deferred } from '../helpers/async.js';
import { finished, spawnScript } from '../helpers/child-process.js';
import { TempStores } from '../helpers/temp-store.js';
import { usePostgres } from '../helpers/postgres-tests.js';

/**
 * Issue 40: a crash is charged to the run whose step killed the process, not to the runs that
 * were in flight beside it. A poison tool (session `poison` of mallory) SIGKILLs every process
 * that runs it; bob's run was in a slow tool and cat's between two steps (its model call open)
 * in the same process. New processes recover the three users, at once or one after another,
 * until `maxRecoveries` stops the poison run: it ends `failed RECOVERY_EXHAUSTED`, the two
 * others complete, and each of their tools finished once. See test/helpers/shared-crash-child.ts.
 */
const CHILD = 'test/helpers/shared-crash-child.ts';
const MAX_RECOVERIES = 2;
/** Each process's clock runs this much later than the last one's: its leases have expired. */
const LEASE_GAP_MS = 60_000;

const temps = new TempStores();
afterEach(() => temps.cleanupAll());
const pgt = usePostgres();

async function effectsOf(file: string): Promise<string[]> {
  const text = await readFile(file, 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => line.split(' ').slice(0, 2).join(' ')); // without the pid
}

const count = (lines: string[], line: string) => lines.filter((l) => l === line).length;

async function crashAndRecover(
  store: { kind: 'level' | 'pg'; where: string; schema: string },
  mode: 'parallel' | 'sequential',
) {
  const effects = join(await temps.folder(), 'effects');
  let generation = 0;
  const child = async (what: string) =>
    finished(
      await spawnScript(
        CHILD,
        [store.kind, store.where, store.schema, effects, what, String(generation++ * LEASE_GAP_MS)],
        { SHARED_MAX_RECOVERIES: String(MAX_RECOVERIES) },
      ),
    );
  const started = await child('start');
  expect(started.signal, started.stderr).toBe('SIGKILL');
  // The poison run may be run again maxRecoveries times (each kills its process); the next
  // process stops it. Bounded, so a run that is never stopped fails the test instead of looping.
  let deaths = 0;
  let last = await child(mode);
  while (last.signal === 'SIGKILL' && deaths <= MAX_RECOVERIES) {
    deaths++;
    last = await child(mode);
  }
  expect(last.code, last.stderr).toBe(0);
  const line = last.stdout.split('\n').find((l) => l.startsWith('result '));
  const result = JSON.parse(line!.slice('result '.length)) as Record<string, unknown>;
  const status = await child('status');
  expect(status.code, status.stderr).toBe(0);
  const statusLine = status.stdout.split('\n').find((l) => l.startsWith('status '));
  const runs = JSON.parse(statusLine!.slice('status '.length)) as Record<string, unknown>;
  return { deaths, result, runs, effects: await effectsOf(effects) };
}

function expectOnlyThePoisonStopped(outcome: Awaited<ReturnType<typeof crashAndRecover>>) {
  // The last process stops the poison run; the others completed there or in an earlier one.
  expect(outcome.result).toMatchObject({ poison: { code: 'RECOVERY_EXHAUSTED' } });
  expect(outcome.runs).toEqual({
    poison: { status: 'failed', code: 'RECOVERY_EXHAUSTED' },
    slow: { status: 'completed', output: 'slow done' },
    between: { status: 'completed', output: 'between done' },
  });
  expect(outcome.deaths).toBe(MAX_RECOVERIES);
  // The poison ran at the first crash and at each restore the limit allowed, never after.
  expect(count(outcome.effects, 'start boom-1')).toBe(MAX_RECOVERIES + 1);
  // Each innocent tool finished once, and nothing ran it again after that.
  expect(count(outcome.effects, 'done slow-1')).toBe(1);
  expect(count(outcome.effects, 'done quick-1')).toBe(1);
  const finishedAt = outcome.effects.indexOf('done slow-1');
  expect(outcome.effects.slice(finishedAt).filter((l) => l === 'enter slow-1')).toEqual([]);
}

describe.each([
  ['LevelDB', 'level'],
  ['PostgreSQL', 'pg'],
] as const)('a crash shared by several runs (%s)', (_name, kind) => {
  const open = async () =>
    kind === 'level'
      ? { kind, where: join(await temps.folder(), 'db'), schema: '-' }
      : { kind, where: pgt.url, schema: pgt.schema('shared') };

  it('recovered in parallel: only the poison run ends RECOVERY_EXHAUSTED; the runs in flight beside it complete, each tool once', async () => {
    expectOnlyThePoisonStopped(await crashAndRecover(await open(), 'parallel'));
  }, 120_000);

  it('recovered one user after another: the same outcome', async () => {
    expectOnlyThePoisonStopped(await crashAndRecover(await open(), 'sequential'));
  }, 120_000);
});

/**
 * The same in one process, with "crashes" that are processes that stop answering (their steps
 * never return; the next agent on the store, `lease: false`, restores what they left), so the
 * queue can be watched: from the second restore on, a restored step runs only while its session
 * holds the runtime's recovery turn; one waiting is logged `run.recovery_queued` and its restart
 * is not saved, so the crash of the session that held the turn is not charged to it.
 */
describe('the recovery turn', () => {
  const A = { sessionId: 'poison', userId: 'mallory' };
  const B = { sessionId: 'slow', userId: 'bob' };

  /** One process: `work` never returns in the sessions of `hangIn` (its crash). */
  function processAgent(store: SessionStore, hangIn: string[]) {
    const entered = new Map<string, ReturnType<typeof deferred<void>>>();
    const queued = new Map<string, ReturnType<typeof deferred<void>>>();
    const of = (m: typeof entered, id: string) => m.get(id) ?? m.set(id, deferred()).get(id)!;
    const work = tool({
      name: 'work',
      description: 'Works',
      parameters: z.object({}),
      onInterrupted: 'retry',
      async execute(_args, { context }) {
        const sessionId = context.sessionId!;
        of(entered, sessionId).resolve();
        if (hangIn.includes(sessionId)) await new Promise(() => undefined);
        return 'worked';
      },
    });
    const model = new ScriptedModel((request) =>
      request.items.some((i) => i.type === 'tool_result')
        ? { text: 'done' }
        : { toolCalls: [{ name: 'work', arguments: {}, callId: 'w1' }] },
    );
    const noop = () => undefined;
    const agent = new Agent({
      name: 'worker',
      store,
      lease: false,
      model,
      tools: [work],
      maxRecoveries: 2,
      logger: {
        debug: noop,
        warn: noop,
        error: noop,
        info: (fields) => {
          if (fields['event'] === 'run.recovery_queued')
            of(queued, String(fields['sessionId'])).resolve();
        },
      },
    });
    return {
      agent,
      entered: (id: string) => of(entered, id).promise,
      queued: (id: string) => of(queued, id).promise,
      resume: (key: typeof A) => agent.resume(key.sessionId, { userId: key.userId }),
    };
  }

  async function restartsOf(store: SessionStore, key: typeof A): Promise<number[]> {
    const run = storedRun<StoredRun>((await store.load(key)).snapshot);
    return Object.values(run?.context.stepStarts ?? {}).map((s) => s.restarts);
  }

  it('charges a crash to the session whose restored step ran, not to one queued behind it', async () => {
    const { store } = await temps.open();
    const first = processAgent(store, [A.sessionId, B.sessionId]);
    void first.agent.run('go', A);
    void first.agent.run('go', B);
    await Promise.all([first.entered(A.sessionId), first.entered(B.sessionId)]);

    // The first restore runs both at once, as before (a deploy's restart costs no wait).
    const second = processAgent(store, [A.sessionId, B.sessionId]);
    void second.resume(A);
    void second.resume(B);
    await Promise.all([second.entered(A.sessionId), second.entered(B.sessionId)]);
    expect(await restartsOf(store, A)).toEqual([1]);
    expect(await restartsOf(store, B)).toEqual([1]);

    // In flight at two crashes: A's step holds the turn, B's waits and is not charged.
    const third = processAgent(store, [A.sessionId, B.sessionId]);
    void third.resume(A);
    await third.entered(A.sessionId);
    void third.resume(B);
    await third.queued(B.sessionId);
    expect(await restartsOf(store, A)).toEqual([2]);
    expect(await restartsOf(store, B)).toEqual([1]);

    // A was in flight at a third crash, past maxRecoveries: stopped; B runs and completes.
    const last = processAgent(store, []);
    const stopped = await last.resume(A).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(stopped).toBeInstanceOf(RecoveryExhaustedError);
    const result = await last.resume(B);
    expect(result.output).toBe('done');
  });

  it('a run cancelled while its restored step holds the turn gives it back, even if the step never ends', async () => {
    const { store } = await temps.open();
    const both = [A.sessionId, B.sessionId];
    const first = processAgent(store, both);
    // The earlier "processes" are gone: what their runs do once the third cancels A is not read.
    const gone = (run: Promise<unknown>) => void run.catch(() => undefined);
    gone(first.agent.run('go', A));
    gone(first.agent.run('go', B));
    await Promise.all([first.entered(A.sessionId), first.entered(B.sessionId)]);
    const second = processAgent(store, both);
    gone(second.resume(A));
    gone(second.resume(B));
    await Promise.all([second.entered(A.sessionId), second.entered(B.sessionId)]);

    const third = processAgent(store, [A.sessionId]);
    const poisoned = third.resume(A).catch((error: unknown) => error);
    await third.entered(A.sessionId);
    const slow = third.resume(B);
    await third.queued(B.sessionId);
    await third.agent.cancel(A.sessionId, { userId: A.userId });
    expect((await slow).output).toBe('done');
    await poisoned;
    expect(await restartsOf(store, B)).toEqual([]);
  });
});
