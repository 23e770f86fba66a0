import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { spawnScript } from '../helpers/child-process.js';
import { mulberry32 } from '../../src/core/seeded-random.js';
import { readLedger } from '../helpers/order-crash-ledger.js';
import {
  CHECKPOINT_KINDS,
  ORDER_OPS,
  checkpointIs,
  type CheckpointKind,
  type OrderCrashResult,
  type OrderOp,
} from '../helpers/order-crash-ops.js';
import { bySize } from '../helpers/test-tier.js';

/**
 * The crash test of examples/order-workflow.ts: the example's flow (two orders; validate, an
 * agent's refund waiting for approval, approval from another process, customer notes sent from
 * another process, the 3-day timeout that escalates, a manager's decision, the payment) run
 * operation by operation in real child processes, each process killed with SIGKILL at a seeded
 * checkpoint (a store write, a model call, before or after a step's effect), in several seeds;
 * each operation is retried in a new process, as a client would, until it returns. The end must
 * equal a run never killed; every finished step ran once, a step runs again only when it was in
 * flight at a kill, and its effect happens once (by its idempotency key); the timer fired once;
 * every event sent from another process was applied once.
 */
const SEEDS = bySize({
  quick: [0x0d3e, 0x51a7, 0xbeef],
  long: [0x0d3e, 0x51a7, 0xbeef, 0x7ab1, 0x42],
});
/** Kills planned per seed (at least 20 over the quick tier's seeds). */
const KILLS_PER_SEED = bySize({ quick: 8, long: 12 });

const WORKER = 'test/helpers/order-crash-worker.ts';

interface Round {
  killed: boolean;
  /** Checkpoints the process printed (`<label>`), in order, up to its end. */
  markers: string[];
  result: OrderCrashResult | undefined;
}

const live = new Set<ChildProcess>();

/** Runs one operation in a new process, killing it with SIGKILL when it prints `kill-me`. */
async function runOp(
  folder: string,
  op: OrderOp,
  kill?: { kind: CheckpointKind; n: number; race: boolean },
): Promise<Round> {
  const child = await spawnScript(WORKER, [folder, op], {
    ORDER_KILL_AT: kill ? `${kill.kind}:${kill.n}` : '',
    ORDER_KILL_MODE: kill?.race ? 'race' : 'hold',
  });
  live.add(child);
  const markers: string[] = [];
  let result: OrderCrashResult | undefined;
  let killRequested = false;
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  createInterface({ input: child.stdout! }).on('line', (line) => {
    if (line === 'kill-me' && !killRequested) {
      killRequested = true;
      child.kill('SIGKILL');
    } else if (line.startsWith('at ')) {
      markers.push(line.split(' ').slice(2).join(' ')); // a race goes on a little after kill-me
    } else if (line.startsWith('result ')) result = JSON.parse(line.slice(7)) as OrderCrashResult;
  });
  return new Promise<Round>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      live.delete(child);
      if (killRequested && signal === 'SIGKILL') resolve({ killed: true, markers, result });
      else if (code === 0 && result) resolve({ killed: false, markers, result });
      else
        reject(
          new Error(`${op} (kill at ${JSON.stringify(kill)}) exited ${code ?? signal}:\n${stderr}`),
        );
    });
  });
}

/** The run never killed: each operation once; the checkpoints each passed. */
async function referenceRun(folder: string) {
  const passed = new Map<OrderOp, string[]>();
  let result: OrderCrashResult | undefined;
  for (const op of ORDER_OPS) {
    const round = await runOp(folder, op);
    passed.set(op, round.markers);
    result = round.result;
  }
  return { result: result!, passed };
}

interface Kill {
  op: OrderOp;
  /** Where it was planned: the n-th checkpoint of a kind, held there or racing on. */
  point: { kind: CheckpointKind; n: number; race: boolean };
  /** The last checkpoint the process printed before it was killed. */
  last: string;
  markers: string[];
}

/**
 * Runs the operations in order, each retried in a new process after a kill until it returns,
 * the kills planned by the seed (`killPlan`). A planned kill whose point a resumed process does
 * not reach (it had less left to do) is not made: the operation returned.
 */
async function crashedRun(folder: string, seed: number, passed: Map<OrderOp, string[]>) {
  const random = mulberry32(seed);
  const plan = killPlan(random);
  const kills: Kill[] = [];
  let result: OrderCrashResult | undefined;
  for (const op of ORDER_OPS) {
    const planned = plan.filter((p) => p.op === op);
    for (;;) {
      const next = planned.shift();
      const kill = next && planKill(passed.get(op)!, next, random);
      const round = await runOp(folder, op, kill);
      if (!round.killed) {
        result = round.result;
        break;
      }
      kills.push({ op, point: kill!, last: round.markers.at(-1) ?? '', markers: round.markers });
    }
  }
  return { result: result!, kills };
}

/**
 * The kills of one seed: held at a model call and a step before its effect while the orders
 * start, at the payment after its effect (in doubt) once A is approved, at a store write in
 * each later operation; the rest at any kind in an operation drawn at random, a third of
 * those racing the work. In the operations' order.
 */
function killPlan(random: () => number): { op: OrderOp; kind: CheckpointKind; race: boolean }[] {
  const plan: { op: OrderOp; kind: CheckpointKind; race: boolean }[] = [
    { op: 'start', kind: 'model', race: false },
    { op: 'start', kind: 'begin', race: false },
    { op: 'approve', kind: 'end', race: false },
    { op: 'notes', kind: 'write', race: false },
    { op: 'later', kind: 'write', race: false },
    { op: 'decide', kind: 'write', race: false },
  ];
  while (plan.length < KILLS_PER_SEED) {
    const op = ORDER_OPS[Math.floor(random() * ORDER_OPS.length)]!;
    const kind = CHECKPOINT_KINDS[Math.floor(random() * CHECKPOINT_KINDS.length)]!;
    plan.push({ op, kind, race: random() < 1 / 3 });
  }
  return plan.sort((x, y) => ORDER_OPS.indexOf(x.op) - ORDER_OPS.indexOf(y.op));
}

/**
 * The kill point of a planned kill among `markers` (what the operation passed in the run never
 * killed): the n-th checkpoint of its kind (any kind when the operation passes none of it),
 * drawn from the first half of them, as a resumed process has less left to do.
 */
function planKill(
  markers: string[],
  planned: { kind: CheckpointKind; race: boolean },
  random: () => number,
) {
  const kind = markers.some((m) => checkpointIs(m, planned.kind)) ? planned.kind : 'any';
  const span = Math.ceil(markers.filter((m) => checkpointIs(m, kind)).length / 2);
  return { kind, n: 1 + Math.floor(random() * span), race: planned.race };
}

/** How many times each line occurs. */
function count(lines: string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const line of lines) counts.set(line, (counts.get(line) ?? 0) + 1);
  return counts;
}

/**
 * An order as compared with the run never killed: its journal's events without the agent's
 * snapshots (the order's \`onSnapshot\` takes one per change of the agent's state, and a model
 * call run again after a kill brings more of them).
 */
function comparable(result: OrderCrashResult): OrderCrashResult {
  return Object.fromEntries(
    Object.entries(result).map(([id, order]) => [
      id,
      { ...order, events: order.events.filter((e) => !e.includes(' xstate.snapshot.')) },
    ]),
  );
}

describe('crash test: the order workflow example killed with SIGKILL at seeded points', () => {
  const folders: string[] = [];
  afterEach(async () => {
    for (const child of live) child.kill('SIGKILL');
    live.clear();
    for (const folder of folders.splice(0)) await rm(folder, { recursive: true, force: true });
  });

  const newFolder = async (): Promise<string> => {
    const folder = await mkdtemp(join(tmpdir(), 'agentstate-order-crash-'));
    folders.push(folder);
    return folder;
  };

  it(`resumes after every kill to the end of a run never killed (${SEEDS.length} seeds, ${KILLS_PER_SEED} kills each)`, async () => {
    const started = Date.now();
    const referenceFolder = await newFolder();
    const reference = await referenceRun(referenceFolder);
    const { attempts: refAttempts, effects: refEffects } = readLedger(referenceFolder);

    // The run never killed: each step once, each effect once, B's timeout fired once, each
    // note and the manager's decision applied once, both orders paid.
    const once = ['pay A', 'pay B', 'ticket B', 'validate A', 'validate B'];
    expect(refAttempts.sort()).toEqual(once);
    expect(refEffects.sort()).toEqual(['pay A', 'pay B', 'ticket B']);
    const { A, B } = reference.result;
    expect(A).toMatchObject({ status: 'completed', value: 'refunded' });
    expect(B).toMatchObject({ status: 'completed', value: 'refunded' });
    expect(A!.context).toMatchObject({ decidedBy: 'agent', payment: { amountUsd: 40 } });
    expect(B!.context).toMatchObject({
      decidedBy: 'manager',
      ticket: 'T-B',
      notes: ['note 1', 'note 2', 'note 3'],
      payment: { confirmation: 'tx-B', amountUsd: 100 },
    });
    expect(A!.steps).toEqual(['validate done', 'pay done']);
    expect(B!.steps).toEqual(['validate done', 'openTicket done', 'pay done']);
    expect(A!.events.filter((e) => e.startsWith('timer '))).toEqual([]);
    expect(B!.events.filter((e) => e.startsWith('timer ') && !e.includes('snapshot'))).toEqual([
      'timer xstate.after.approvalTimeout.order.drafting',
    ]);
    for (const id of ['note-1', 'note-2', 'note-3', 'manager-B'])
      expect(B!.events.filter((e) => e.endsWith(` ${id}`))).toHaveLength(1);

    const allKills: Kill[] = [];
    for (const seed of SEEDS) {
      const folder = await newFolder();
      const crashed = await crashedRun(folder, seed, reference.passed);
      const { attempts, effects } = readLedger(folder);
      allKills.push(...crashed.kills);
      const context = `seed ${seed}: kills at ${crashed.kills.map((k) => `${k.op}/${k.last}`).join(', ')}`;

      // The same end and the same path: states, contexts, outputs, each step's outcome and
      // each event journaled once (the timer's, the notes', the decision's), as in the run
      // never killed.
      expect(comparable(crashed.result), context).toEqual(comparable(reference.result));

      // Each effect happened once per order: a step run again came with the same key.
      expect(effects.sort(), context).toEqual(refEffects);
      // A step ran again only when a process was killed while it was in flight (it had
      // begun in that process): the finished ones ran once.
      for (const [attempt, n] of count(attempts)) {
        const inFlight = crashed.kills.filter((k) => k.markers.includes(`begin ${attempt}`));
        expect(n - 1, `${attempt} (${context})`).toBeLessThanOrEqual(inFlight.length);
      }
      expect([...count(attempts).keys()].sort(), context).toEqual(once);
    }

    // At least 20 kills over the seeds, in every operation: held at a store write, a model
    // call, a step before its effect and after it (in doubt), and racing the work.
    expect(allKills.length).toBeGreaterThanOrEqual(20);
    const held = allKills.filter((k) => !k.point.race);
    for (const kind of ['write', 'model', 'begin', 'end'] as const)
      expect(held.filter((k) => checkpointIs(k.last, kind)).length, kind).toBeGreaterThan(0);
    expect(allKills.some((k) => k.point.race)).toBe(true);
    expect(new Set(allKills.map((k) => k.op))).toEqual(new Set(ORDER_OPS));
    console.info(
      `order workflow crash test: ${allKills.length} kills over ${SEEDS.length} seeds ` +
        `(${held.length} held, ${allKills.length - held.length} racing) at ` +
        `${allKills.map((k) => `${k.op}/${k.last}`).join(', ')} in ${Date.now() - started} ms`,
    );
  }, 600_000);
});
