import type { AnyActorRef } from 'xstate';
import type { SessionLog } from '../actors/session-log.js';
import type { SessionMachineContext } from '../machines/session-types.js';
import type { SessionRecord, SessionStore, UsageTotals } from '../persistence/session-store.js';
import type { SessionLease } from '../persistence/session-leases.js';
import type { Clock } from '../core/clock.js';
import type { DurabilityPolicy, StepKind } from '../core/durability-policy.js';
import { approvalDeadline, awaitsApproval, type RunLike } from '../runs/run-activity.js';
import { sessionStatusOf } from '../runs/session-status.js';
import { storedRun } from '../runs/stored-run.js';
import { sameJson } from '../validation/same-json.js';
import { subtractUsd } from '../validation/usd-amount.js';
import { saveRetryWait } from './save-retries.js';

type StateValue = Parameters<typeof sessionStatusOf>[0];

/** What one action gives its session's saves. */
export interface CommitBinding {
  /** Called after each successful save with the stored record. */
  onSaved?: ((record: SessionRecord) => void) | undefined;
  /** The lease every save carries (fencing), when the runtime holds one. */
  lease?: SessionLease | undefined;
  /** Which changes are saved at once (absent: every one, the `'step'` durability). */
  policy?: DurabilityPolicy | undefined;
}

const AT_REST: CommitBinding = Object.freeze({});

/** What `flush` and `barrier` answer when nothing is to wait for (settled, shared). */
const SETTLED: Promise<void> = Promise.resolve();

type Drained = ReturnType<SessionLog['drain']>;

function delta(now: UsageTotals, before: UsageTotals): UsageTotals | undefined {
  const d = {
    turns: now.turns - before.turns,
    inputTokens: now.inputTokens - before.inputTokens,
    outputTokens: now.outputTokens - before.outputTokens,
    costUsd: subtractUsd(now.costUsd, before.costUsd),
  };
  return d.turns || d.inputTokens || d.outputTokens || d.costUsd ? d : undefined;
}

/**
 * Writes a session after its actor moves: the persisted snapshot (which nests the run and its
 * in-flight steps), the new history items and journal entries, the listing index and the
 * user's totals, as ONE optimistic save. Saves are serialised and coalesced: while one is
 * being written, further changes collapse into the next. With a durability policy, a change
 * the policy does not save at once waits (in the actor and the log) for the next save.
 */
export class SessionCommitter {
  /** The error that stopped saving; the session must then be reloaded. */
  failure: unknown;
  /** The actor changed since the last save. */
  private dirty = false;
  /** A save of the changes may be due: the policy decides again when the save starts. */
  private due = false;
  /** Every change must be saved, whatever the policy (a flush). */
  private forced = false;
  /** The running saves (see `start`), and how they end. */
  private running: Promise<void> | undefined;
  private finish: ((failure: unknown) => void) | undefined;
  /** Someone waits for the running saves: only then can they end rejected. */
  private awaited = false;
  /** Failed tries of the save under way (see `saveRetryWait`). */
  private retries = 0;
  /** Ends the wait before the save's next try, while one waits (see `stopRetries`). */
  private retryWait: AbortController | undefined;
  /**
   * The last stored persisted snapshot: an actor that did not move (e.g. restored) saves
   * nothing. Compared as JSON without stringifying it (`sameJson`): XState's persisted
   * snapshots share the context objects that did not change, so the walk is short, and the
   * store stringifies each snapshot once, to write it.
   */
  private storedSnapshot: unknown;

  /** What the current action gives the saves (none while the session waits at rest). */
  private binding: CommitBinding = AT_REST;

  constructor(
    private readonly store: SessionStore,
    public record: SessionRecord,
    private readonly actor: AnyActorRef,
    private readonly log: SessionLog,
    private readonly clock: Clock,
    private readonly onFailure: () => void,
  ) {
    this.storedSnapshot = actor.getPersistedSnapshot();
  }

  /** Gives the saves of an action its lease, durability and `onSaved` (`undefined`: none, at rest). */
  bind(binding: CommitBinding | undefined): void {
    this.binding = binding ?? AT_REST;
  }

  /**
   * Whether the session is at rest as stored: nothing unsaved, no save running or failed, and
   * the persisted snapshot last saved (or restored) is the stored record's. A live actor in
   * that state is what a restore of `record` would build.
   */
  atRest(): boolean {
    return (
      !this.failure &&
      !this.dirty &&
      !this.due &&
      this.running === undefined &&
      (this.storedSnapshot === this.record.snapshot ||
        sameJson(this.storedSnapshot, this.record.snapshot))
    );
  }

  /** Notes that the actor changed; a save follows (now, or at the next durable point). */
  schedule(): void {
    if (this.failure) return;
    this.dirty = true;
    if (this.savesNow()) this.start();
  }

  /** Resolves when every change so far is saved; throws the save failure, if any. */
  flush(): Promise<void> {
    // Messages taken from the inbox change no actor: their items are saved all the same.
    if ((this.dirty || this.log.takesPending()) && !this.failure) {
      this.forced = true;
      this.start();
    }
    return this.settled();
  }

  /**
   * What a step waits for before it does fresh work: every change saved (`flush`) when the
   * policy wants it durable first, else only the saves already due.
   */
  barrier(kind: StepKind): Promise<void> {
    return (this.binding.policy?.savesBefore(kind) ?? true) ? this.flush() : this.settled();
  }

  /**
   * Resolves when the saves due so far are written; throws the save failure, if any. Each step
   * and each action's end waits here: with no save running and none failed, it answers at once
   * with a promise already settled; otherwise every waiter shares the running saves' promise.
   * Neither creates a promise (each also costs Node's async-context hook).
   */
  private settled(): Promise<void> {
    if (this.running) {
      this.awaited = true;
      return this.running;
    }
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the store's error, as thrown
    return this.failure ? Promise.reject(this.failure) : SETTLED;
  }

  /** Whether the policy saves the changes now (it may have moved on since `schedule`). */
  private savesNow(): boolean {
    return this.binding.policy?.savesOnChange() ?? true;
  }

  /**
   * Starts saving, unless saves run already (they take the due change too). One promise covers
   * every save until none is due: it resolves then, or rejects with the failure that stopped
   * them when someone waits for it (else the failure waits in `failure` for the next caller, and
   * no rejection goes unhandled). Callbacks, not an async function with `finally`.
   */
  private start(): void {
    this.due = true;
    if (this.running) return;
    this.running = new Promise<void>((resolve, reject) => {
      this.finish = (failure) =>
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the store's error, as thrown
        failure === undefined || !this.awaited ? resolve() : reject(failure);
    });
    this.awaited = false;
    void SETTLED.then(() => this.next()); // let the current macrotask's transitions coalesce
  }

  /**
   * Saves the due changes, one save at a time; ends the running saves when none is due. What
   * throws here (the actor, the log, `onSaved`) stops the saves as a failed save does, so no
   * waiter is left hanging and no rejection goes unhandled.
   */
  private next(): void {
    try {
      if (this.saveDue()) return; // a save is under way: it calls `next` when it settles
    } catch (error) {
      this.failure ??= error;
      this.onFailure();
    }
    const finish = this.finish;
    this.running = this.finish = undefined;
    finish?.(this.failure);
  }

  /** Starts saving the due changes, if any: true when a save is under way. */
  private saveDue(): boolean {
    while (this.due && !this.failure) {
      this.due = false;
      if (!this.forced && !this.savesNow()) break; // e.g. the run started: held until its next durable point
      this.forced = false;
      this.dirty = false;
      const snapshot = this.actor.getSnapshot() as {
        value: StateValue;
        context: SessionMachineContext;
      };
      const drained = this.log.drain();
      const persisted = this.actor.getPersistedSnapshot();
      if (
        drained.items.length === 0 &&
        drained.journal.length === 0 &&
        drained.dequeued.length === 0 &&
        sameJson(persisted, this.storedSnapshot)
      ) {
        // Nothing changed: audit entries wait for the save of the change they record.
        this.log.restore(drained);
        continue;
      }
      const next: SessionRecord = {
        ...this.record,
        snapshot: persisted,
        status: sessionStatusOf(snapshot.value),
        historyLength: this.record.historyLength + drained.items.length,
        usage: snapshot.context.usage,
        updatedAt: this.clock.now(),
        approvalDeadline: approvalDeadline(storedRun<RunLike>(persisted)),
        awaitingApproval: awaitsApproval(storedRun<RunLike>(persisted)) ? true : undefined,
      };
      let saving: Promise<SessionRecord>;
      try {
        saving = this.store.save({
          record: next,
          items: drained.items,
          journal: drained.journal,
          userUsageDelta: delta(snapshot.context.usage, this.record.usage),
          lease: this.binding.lease,
          ...(drained.audit.length ? { audit: drained.audit } : {}),
          ...(drained.dequeued.length ? { dequeued: drained.dequeued } : {}),
        });
      } catch (error) {
        this.failed(drained, error); // a store that throws instead of rejecting
        break;
      }
      saving.then(
        (record) => {
          try {
            this.retries = 0;
            this.record = record;
            this.log.committed(drained.items, drained.journal);
            this.storedSnapshot = persisted;
            this.binding.onSaved?.(this.record);
          } catch (error) {
            this.failed(drained, error);
          }
          this.next();
        },
        (error: unknown) => {
          const wait = saveRetryWait(error, drained, this.retries);
          if (wait === undefined) {
            this.failed(drained, error);
            this.next();
            return;
          }
          // The store is unreachable and this process alone knows a tool's result: saved again.
          this.retries += 1;
          this.log.restore(drained);
          this.due = this.forced = true;
          const waiting = (this.retryWait = new AbortController());
          void this.clock.sleepUntil(this.clock.now() + wait, waiting.signal).then(
            () => {
              this.retryWait = undefined;
              this.next();
            },
            () => {
              // Stopped (`stopRetries`): the save fails now with the store's error.
              this.retryWait = undefined;
              this.failure = error;
              this.onFailure();
              this.next();
            },
          );
        },
      );
      return true;
    }
    return false;
  }

  /**
   * Gives up the save waiting to be tried again, if one waits (the run was cancelled): it fails
   * now with the store's error, as past the last wait, instead of after the waits left. The
   * tool result it carried is not stored: its call is in doubt on resume, as after a crash.
   */
  stopRetries(): void {
    this.retryWait?.abort();
  }

  private failed(drained: Drained, error: unknown): void {
    this.log.restore(drained);
    this.failure = error;
    this.onFailure();
  }
}
