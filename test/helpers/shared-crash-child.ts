/**
 * Child process of test/recovery/shared-crash-recovery.int.test.ts: one process of an app whose runs share
 * it with a poison run.
 *   node --import tsx test/helpers/shared-crash-child.ts <level|pg> <dbDir|url> <schema|-> \
 *     <effectsFile> <start|parallel|sequential|status> <clockOffsetMs>
 *
 * Three sessions of three users run `worker`:
 * - `poison` of mallory: the model asks for `detonate`, which appends `start <callId> <pid>` to
 *   the effects file, waits until every other run this process runs is inside its step (or
 *   queued behind another restored step, or its recovery has returned), then SIGKILLs the
 *   process. It runs again after each crash (`onInterrupted: 'retry'`).
 * - `slow` of bob: the model asks for `slow`, a tool that appends `enter`, waits, appends `done`.
 * - `between` of cat: the model asks for `quick` (instant), then its next model call waits:
 *   the run is between two steps, its model step open.
 * What the innocents wait for happens only once the poison run is out of the way: it is queued
 * behind another restored step, or its recovery returned.
 *
 * `start` runs the three at once (the poison kills the process). `parallel` recovers the three
 * users at once (`runtime.recover()` per user, as an app does), `sequential` one after another
 * (mallory first); either prints `result <json>`: per session recovered, the output or the
 * error's code. `status` prints `status <json>`: each session's last run (status, output, code).
 */
import { appendFileSync } from 'node:fs';
import { z } from 'zod';
import {
  Agent,
  AgentStateError,
  LevelSessionStore,
  tool,
  type Logger,
  type SessionStore,
} from '../../src/index.js';
import { PostgresSessionStore } from '../../src/postgres.js';
import { ScriptedModel } from '../../src/testing.js';
import { systemClock } from '../../src/core/clock.js';

export const SESSIONS = {
  mallory: { sessionId: 'poison', userId: 'mallory', text: 'boom' },
  bob: { sessionId: 'slow', userId: 'bob', text: 'slow' },
  cat: { sessionId: 'between', userId: 'cat', text: 'between' },
} as const;
const INNOCENTS = ['slow', 'between'] as const;

async function main(): Promise<void> {
  const [kind, where, schema, effectsFile, mode, offset] = process.argv.slice(2);
  if (!kind || !where || !schema || !effectsFile || !mode || offset === undefined) {
    throw new Error(
      'usage: shared-crash-child.ts <level|pg> <where> <schema|-> <effects> <mode> <offset>',
    );
  }
  const effect = (line: string) => appendFileSync(effectsFile, `${line} ${process.pid}\n`);
  const shift = Number(offset);
  const clock = {
    now: () => systemClock.now() + shift,
    sleepUntil: (at: number, signal?: AbortSignal) => systemClock.sleepUntil(at - shift, signal),
  };

  // What this process saw, by session id: inside its step, queued, recovery returned.
  const recovering = new Set<string>(mode === 'start' ? INNOCENTS : []);
  const entered = new Set<string>();
  const queued = new Set<string>();
  const settled = new Set<string>();
  const waiting = new Set<() => void>();
  const notify = () => {
    for (const check of [...waiting]) check();
  };
  const until = (ready: () => boolean) =>
    new Promise<void>((resolve) => {
      const check = () => {
        if (!ready()) return;
        waiting.delete(check);
        resolve();
      };
      waiting.add(check);
      check();
    });
  const poisonOutOfTheWay = () => until(() => queued.has('poison') || settled.has('poison'));
  const enter = (sessionId: string) => {
    entered.add(sessionId);
    notify();
  };

  const detonate = tool({
    name: 'detonate',
    description: 'Kills the process that runs it',
    parameters: z.object({}),
    onInterrupted: 'retry',
    async execute(_args, { callId }) {
      effect(`start ${callId}`);
      await until(() =>
        INNOCENTS.every(
          (s) => !recovering.has(s) || entered.has(s) || queued.has(s) || settled.has(s),
        ),
      );
      process.kill(process.pid, 'SIGKILL');
      return 'unreachable';
    },
  });
  const slow = tool({
    name: 'slow',
    description: 'Takes its time',
    parameters: z.object({}),
    onInterrupted: 'retry',
    async execute(_args, { callId }) {
      effect(`enter ${callId}`);
      enter('slow');
      await poisonOutOfTheWay();
      effect(`done ${callId}`);
      return 'slow ok';
    },
  });
  const quick = tool({
    name: 'quick',
    description: 'Instant',
    parameters: z.object({}),
    execute(_args, { callId }) {
      effect(`done ${callId}`);
      return 'quick ok';
    },
  });
  const model = new ScriptedModel(async (request) => {
    const said = request.items.find((i) => i.type === 'message' && i.role === 'user');
    const text = said && 'content' in said && typeof said.content === 'string' ? said.content : '';
    const answered = request.items.some((i) => i.type === 'tool_result');
    if (text === 'boom') {
      return answered
        ? { text: 'boom done' }
        : { toolCalls: [{ name: 'detonate', arguments: {}, callId: 'boom-1' }] };
    }
    if (text === 'slow') {
      return answered
        ? { text: 'slow done' }
        : { toolCalls: [{ name: 'slow', arguments: {}, callId: 'slow-1' }] };
    }
    if (!answered) return { toolCalls: [{ name: 'quick', arguments: {}, callId: 'quick-1' }] };
    enter('between');
    await poisonOutOfTheWay();
    return { text: 'between done' };
  });
  const logger: Logger = {
    debug: () => undefined,
    info: (fields) => {
      if (fields['event'] === 'run.recovery_queued' && typeof fields['sessionId'] === 'string') {
        queued.add(fields['sessionId']);
        notify();
      }
    },
    warn: () => undefined,
    error: () => undefined,
  };

  const store: SessionStore =
    kind === 'pg'
      ? await PostgresSessionStore.open({ connectionString: where, schema, clock, poolSize: 6 })
      : await LevelSessionStore.open({ path: where });
  const agent = new Agent({
    name: 'worker',
    store,
    clock,
    model,
    tools: [detonate, slow, quick],
    maxRecoveries: Number(process.env['SHARED_MAX_RECOVERIES'] ?? '3'),
    logger,
    ...(kind === 'pg' ? { lease: { owner: `p${process.pid}`, ttlMs: 30_000 } } : {}),
  });
  const sessions = Object.values(SESSIONS);
  if (mode === 'start') {
    await Promise.all(
      sessions.map((s) => agent.run(s.text, { sessionId: s.sessionId, userId: s.userId })),
    );
    throw new Error('the runs returned');
  }
  const runtime = agent.runtimeFor(store);
  const results: Record<string, unknown> = {};
  if (mode === 'status') {
    for (const s of sessions) {
      const last = (await runtime.getSession(s)).lastRun;
      results[s.sessionId] = {
        status: last?.status,
        output: last?.output,
        code: last?.error?.code,
      };
    }
    process.stdout.write(`status ${JSON.stringify(results)}\n`);
    await store.close();
    return;
  }
  const recoverOne = async (s: (typeof sessions)[number]) => {
    recovering.add(s.sessionId);
    try {
      for (const r of await runtime.recover({ olderThan: 0, userId: s.userId })) {
        results[r.key.sessionId] = r.error
          ? { code: r.error instanceof AgentStateError ? r.error.code : 'not an AgentStateError' }
          : { output: r.result?.output };
      }
    } finally {
      settled.add(s.sessionId);
      notify();
    }
  };
  if (mode === 'parallel') await Promise.all(sessions.map(recoverOne));
  else for (const s of sessions) await recoverOne(s);
  process.stdout.write(`result ${JSON.stringify(results)}\n`);
  await store.close();
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(
      `shared-crash-child failed: ${error instanceof Error ? error.stack : String(error)}\n`,
    );
    process.exit(1);
  },
);
