import { continueRun } from '../actions/continue-run.js';
import { sendMessage } from '../actions/send-message.js';
import type { WhileBusy } from '../core/busy-policy.js';
import { AgentStateError } from '../errors/agentstate-error.js';
import { MessageAnsweredError } from '../errors/message-answered-error.js';
import { MessageQueuedError } from '../errors/message-queued-error.js';
import { SessionConflictError, SessionSaveFailedError } from '../errors/session-errors.js';
import type { SessionKey } from '../persistence/session-store.js';
import type { SessionRuntime } from '../sessions/session-runtime.js';
import type { FakeClock } from '../testing/fake-clock.js';
import { yieldTurns, type ObservedStore } from './observed-store.js';
import type { WorkerClock } from './worker-clock.js';
import type { SentMessage, WriteLog } from './write-log.js';
import type { WriterFinding } from './writers-report.js';
import type { WritersSettings } from './writers-options.js';

/** How long a worker's lease lasts unrenewed in the simulation (renewed every third of it). */
export const LEASE_TTL_MS = 10_000;
/** Rounds of yields after which an operation still waiting while every worker is idle is stuck. */
const IDLE_ROUNDS = 500;
/** Rounds of recovery, approvals and resumes the drain makes at most. */
const DRAIN_ROUNDS = 20;
/** Rounds of yields with nothing in flight and every worker idle before a settle ends. */
const QUIET_ROUNDS = 20;
/** Rounds of yields after which a worker still busy is a bug of the simulation's own. */
const BUSY_ROUNDS = 200_000;

/** One simulated worker: its skewed clock, its view of the store and its own runtime. */
export interface Worker {
  index: number;
  owner: string;
  clock: WorkerClock;
  store: ObservedStore;
  runtime: SessionRuntime;
}

/** An operation in flight, and what to report if its caller never hears back. */
interface InFlight {
  what: string;
  sessionId: string;
  worker: number;
  messageId?: string | undefined;
}

/**
 * The operations of one seed, drawn from its generator and run against the workers: sends
 * (`whileBusy` 'queue' or 'reject', each with a message id, retried with it after a failed
 * write), cancels from any worker, approvals, resumes of runs a failed write stopped, recoveries, and lost
 * leases (a worker hangs with a write in flight, its lease expires, another takes the session
 * over, then the first wakes). Operations overlap; the simulation moves time itself between
 * them. At the end every fault stops, every worker wakes, recovery and resumes answer what is
 * left, and the run waits until no worker holds a lease, so the final histories can be read.
 */
export class WritersRun {
  private readonly pending = new Map<Promise<void>, InFlight>();
  /** Errors that are no `AgentStateError`: a bug, thrown at the end. */
  private readonly unexpected: unknown[] = [];

  constructor(
    private readonly settings: WritersSettings,
    private readonly parts: {
      random: () => number;
      world: FakeClock;
      log: WriteLog;
      workers: readonly Worker[];
      keys: readonly SessionKey[];
    },
  ) {}

  /** Runs the seed's operations and the drain; resolves with the calls that never ended. */
  async run(): Promise<WriterFinding[]> {
    const { random, world } = this.parts;
    for (let op = 0; op < this.settings.operations; op++) {
      await this.operation(op);
      await yieldTurns(Math.floor(random() * 4));
      if (random() < 0.3) world.advance(Math.floor((random() * LEASE_TTL_MS) / 5));
    }
    await this.settle();
    await this.drain();
    if (this.unexpected.length > 0) {
      throw new Error(`simulateWriters(seed ${this.settings.seed}): an unexpected error`, {
        cause: this.unexpected[0],
      });
    }
    return [...this.pending.values()].map(({ what, sessionId, worker, messageId }) => ({
      sessionId,
      worker,
      messageId,
      detail: `${what}: its caller never heard back (every worker idle)`,
    }));
  }

  private async operation(op: number): Promise<void> {
    const { random, workers, keys } = this.parts;
    const worker = this.pick(workers);
    const key = this.pick(keys);
    if (random() < this.settings.faults.lostLeases) return this.lostLease(op, key);
    // Started, not awaited: operations overlap (each is tracked, and never rejects).
    const kind = random();
    if (kind < 0.35) void this.send(worker, key, 'queue', op);
    else if (kind < 0.7) void this.send(worker, key, 'reject', op);
    else if (kind < 0.75) void this.cancel(worker, key);
    else if (kind < 0.82) void this.resume(worker, key);
    else if (kind < 0.92) void this.approve(worker, key);
    else void this.recover(worker);
  }

  /**
   * A lost lease: worker A's next write of the session is held, A hangs (its clock frozen, no
   * renewal), time passes its lease, B acts on the session (a message or a recovery) with its own
   * next write held; then A's write goes in (fencing must refuse it), then B's.
   */
  private async lostLease(op: number, key: SessionKey): Promise<void> {
    const { workers, world, random } = this.parts;
    const a = this.pick(workers);
    const others = workers.filter((w) => w !== a);
    const b = this.pick(others);
    const heldA = a.store.holdNext(key.sessionId);
    const sendA = this.send(a, key, 'reject', op);
    if (!(await arrivesFirst(heldA.arrived, sendA))) return heldA.release();
    a.clock.freeze();
    world.advance(LEASE_TTL_MS + 2 * this.settings.faults.clockSkewMs + 1);
    const heldB = b.store.holdNext(key.sessionId);
    const actB =
      random() < 0.5 ? this.send(b, key, 'reject', this.settings.operations + op) : this.recover(b);
    await arrivesFirst(heldB.arrived, actB);
    heldA.release();
    await arrivesFirst(sendA, yieldTurns(50));
    a.clock.unfreeze();
    heldB.release();
  }

  /** Sends message `n` (retried with its id after a failed write), noting what its caller heard. */
  private send(worker: Worker, key: SessionKey, whileBusy: WhileBusy, n: number): Promise<void> {
    const text = `m${n}`;
    const messageId = `seed${this.settings.seed}-m${n}`;
    const heard = (outcome: SentMessage['outcome']) => {
      const { sessionId } = key;
      this.parts.log.sends.push({ worker: worker.index, sessionId, messageId, text, outcome });
    };
    const sending = async (): Promise<void> => {
      for (let attempt = 0; attempt < 3; attempt++) {
        try {
          await worker.runtime.execute(key, sendMessage(text, { messageId, whileBusy }));
          return heard('answered');
        } catch (error) {
          if (error instanceof MessageQueuedError) return heard('queued');
          if (error instanceof MessageAnsweredError) return heard('answered-before');
          this.expected(error);
          const again =
            error instanceof SessionSaveFailedError || error instanceof SessionConflictError;
          if (!again) break;
        }
      }
      heard('unacknowledged');
    };
    const what = `send of ${messageId} (whileBusy '${whileBusy}')`;
    return this.track(sending(), {
      what,
      sessionId: key.sessionId,
      worker: worker.index,
      messageId,
    });
  }

  private cancel(worker: Worker, key: SessionKey): Promise<void> {
    const what = 'cancel';
    return this.track(worker.runtime.cancel(key, worker.owner), {
      what,
      sessionId: key.sessionId,
      worker: worker.index,
    });
  }

  /** Resumes the session's run a failed write stopped, as its app (or an operator) would. */
  private resume(worker: Worker, key: SessionKey): Promise<void> {
    return this.track(
      worker.runtime.execute(key, continueRun()).then(() => undefined),
      { what: 'resume', sessionId: key.sessionId, worker: worker.index },
    );
  }

  /** Approves every call the session's run waits on, as read by `worker`. */
  private approve(worker: Worker, key: SessionKey): Promise<void> {
    const approving = async (): Promise<void> => {
      const view = await worker.runtime.getSession(key);
      const decisions = (view.runStatus?.interruptions ?? []).map(({ callId, runId }) => ({
        callId,
        runId,
        approve: true,
      }));
      if (decisions.length === 0) return;
      await worker.runtime.execute(key, continueRun({ decisions, by: worker.owner }));
      const { sessionId } = key;
      for (const { callId } of decisions) {
        this.parts.log.approvals.push({ worker: worker.index, sessionId, callId });
      }
    };
    return this.track(approving(), {
      what: 'approve',
      sessionId: key.sessionId,
      worker: worker.index,
    });
  }

  private recover(worker: Worker): Promise<void> {
    const userId = this.parts.keys[0]!.userId;
    return this.track(
      worker.runtime.recover({ olderThan: 0, userId }).then(() => undefined),
      { what: 'recover', sessionId: '', worker: worker.index },
    );
  }

  /** Every fault off, every worker awake: recovery, approvals and resumes answer what is left. */
  private async drain(): Promise<void> {
    const { workers, world, keys } = this.parts;
    for (const worker of workers) {
      worker.store.faultsOn = false;
      worker.clock.unfreeze();
    }
    await this.settle();
    // Until a round approves nothing (a queued message's run may wait for one in turn).
    for (let round = 0, approved = 1; approved > 0 && round < DRAIN_ROUNDS; round++) {
      world.advance(LEASE_TTL_MS + 2 * this.settings.faults.clockSkewMs + 1);
      await this.settle(this.recover(workers[0]!));
      const before = this.parts.log.approvals.length;
      for (const key of keys) await this.settle(this.approve(workers[0]!, key));
      for (const key of keys) await this.settle(this.resume(workers[0]!, key));
      approved = this.parts.log.approvals.length - before + (round === 0 ? 1 : 0);
    }
  }

  /**
   * Waits for `operation` (by default, every operation in flight) and until no worker holds a
   * lease or awaits the store, moving time now and then (a wait on the clock ends). Returns early when every worker
   * has been idle a while and only calls waiting on nothing are left (reported as stuck).
   */
  private async settle(operation?: Promise<void>): Promise<void> {
    let done = false;
    void operation?.then(() => (done = true));
    const { workers, world } = this.parts;
    let idle = 0;
    let quiet = 0;
    for (let round = 1; ; round++) {
      const waiting = operation ? !done : this.pending.size > 0;
      const busy = workers.some((w) => w.store.busy);
      quiet = waiting || busy ? 0 : quiet + 1;
      if (quiet > QUIET_ROUNDS) return;
      idle = busy ? 0 : idle + 1;
      if (idle > IDLE_ROUNDS) return;
      if (round > BUSY_ROUNDS) {
        throw new Error(`simulateWriters(seed ${this.settings.seed}): a worker never went idle`);
      }
      await yieldTurns(2);
      if (round % 10 === 0) world.advance(LEASE_TTL_MS / 5);
    }
  }

  private track(operation: Promise<void>, inFlight: InFlight): Promise<void> {
    const done = operation.then(
      () => undefined,
      (error: unknown) => this.expected(error),
    );
    this.pending.set(done, inFlight);
    void done.then(() => this.pending.delete(done));
    return done;
  }

  /** A typed error is an outcome the simulation expects; any other is a bug, kept for the end. */
  private expected(error: unknown): void {
    if (!(error instanceof AgentStateError)) this.unexpected.push(error);
  }

  private pick<T>(values: readonly T[]): T {
    return values[Math.floor(this.parts.random() * values.length)]!;
  }
}

/** Whether `first` settles before `other`. */
async function arrivesFirst(first: Promise<void>, other: Promise<void>): Promise<boolean> {
  return Promise.race([first.then(() => true), other.then(() => false)]);
}
