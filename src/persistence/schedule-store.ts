import type { AuditEntry } from './audit-log.js';

/**
 * Schedules as a store keeps them: what starts work on a calendar (a cron in a time zone, an
 * interval, one time), partitioned by `userId` exactly like sessions (another user's schedule
 * behaves as missing), versioned like sessions (every write names the version it read), and an
 * index of the next fire times the scheduler reads in time order (never a scan).
 *
 * The store's `schedules` capability (`STORE_CONTRACT`), checked by the exported contract suite.
 */

/** When a schedule fires, as stored (the runtime parses and checks it before a write). */
export type ScheduleRule =
  /** A cron pattern (5 or 6 fields) in an IANA time zone. */
  | { cron: string; timezone: string }
  /** Every `every` milliseconds (at least 1,000) from `from` (epoch ms). */
  | { every: number; from: number }
  /** Once, at `at` (epoch ms). */
  | { at: number };

/** What a tick does. */
export type ScheduleTarget =
  /** Sends `text` into session `sessionId` (created if missing) of the schedule's user, run by agent `agent`. */
  | {
      type: 'message';
      agent: string;
      sessionId: string;
      text: string;
      /** App metadata the run's tools read from their RunContext (plain JSON). */
      metadata?: Record<string, unknown> | undefined;
    }
  /** Sends `event` to instance `instanceId` of workflow `workflow`. */
  | {
      type: 'event';
      workflow: string;
      instanceId: string;
      event: { type: string } & Record<string, unknown>;
    }
  /** Starts an instance of workflow `workflow` with `input`, id `<instanceId>-<tick in epoch ms>`. */
  | { type: 'start'; workflow: string; instanceId: string; input?: unknown };

/**
 * What a tick does when its target is still busy (the message policies): `skip` the tick,
 * `queue` it behind the running work, or `interrupt` that work. Workflow events queue by
 * nature (an instance takes its events in order); a start skips or interrupts.
 */
export type OverlapPolicy = 'skip' | 'queue' | 'interrupt';

/**
 * What happens to ticks missed while no process ran a scheduler: `none` fires none of them
 * (the next one on time fires), `latest` fires the latest one, `{ all: n }` fires every missed
 * tick in order, at most the latest `n`.
 */
export type CatchUpPolicy = 'none' | 'latest' | { all: number };

/** What a fired tick did. */
export type TickOutcome =
  /** The target's run (or instance) started. */
  | 'started'
  /** Queued behind the target's running work. */
  | 'queued'
  /** The target's running work was cancelled and the tick's started. */
  | 'interrupted'
  /** The target was busy and the policy is `skip`. */
  | 'skipped'
  /** Missed while no process ran, and not caught up (the catch-up policy). */
  | 'missed'
  /** Firing failed (the error is kept); the schedule goes on with its next tick. */
  | 'failed';

/** The latest tick a schedule fired (or passed over). */
export interface TickRecord {
  /** The tick's time (epoch ms): when it was due. */
  tick: number;
  /** When it was fired (epoch ms). */
  firedAt: number;
  outcome: TickOutcome;
  /** The run the tick started or queued (message targets). */
  runId?: string | undefined;
  /** The session, or the workflow instance, the tick went to. */
  sessionId?: string | undefined;
  /**
   * Ticks passed over by the catch-up policy on the way to this one (a cron's counted up to
   * 1,000: past that, at least this many).
   */
  missed?: number | undefined;
  /** Why it failed: the error's code and message (redacted). */
  error?: { code: string; message: string } | undefined;
}

/**
 * A tick a scheduler claimed and fires: others leave it alone until `until`; past it (the
 * scheduler died, or its run is still going), another scheduler fires it again under the same
 * idempotency key, so it runs once.
 */
export interface TickClaim {
  tick: number;
  /** The scheduler's owner name. */
  owner: string;
  /** Epoch ms. */
  until: number;
  /** Ticks passed over by the catch-up policy on the way to this one. */
  missed?: number | undefined;
}

/** A schedule as stored. Plain JSON. */
export interface ScheduleRecord {
  /** 1 to 200 characters, unique within its user. */
  id: string;
  /** The owner (`undefined`: the anonymous bucket). */
  userId: string | undefined;
  rule: ScheduleRule;
  target: ScheduleTarget;
  overlap: OverlapPolicy;
  catchUp: CatchUpPolicy;
  /** No tick after this time (epoch ms). */
  endAt?: number | undefined;
  /** No more ticks once this many fired. */
  maxRuns?: number | undefined;
  /** A human's line about it. */
  description?: string | undefined;
  paused: boolean;
  /** The next tick not yet claimed (epoch ms); absent once the schedule has ended. */
  nextAt?: number | undefined;
  /**
   * When a scheduler must look at it next (epoch ms): its next tick (unless paused), or the
   * earliest `until` of its claims. The next-tick index is kept on it; absent: not in the index.
   */
  dueAt?: number | undefined;
  /** Ticks claimed (fired or caught up), counted against `maxRuns`. */
  runs: number;
  lastTick?: TickRecord | undefined;
  /** Ticks being fired, oldest first (at most 100). */
  claims?: TickClaim[] | undefined;
  createdAt: number;
  updatedAt: number;
  /** 1 when created, + 1 per write. */
  version: number;
}

/** Which schedule: its user and id. */
export interface ScheduleKey {
  userId?: string | undefined;
  id: string;
}

export interface ListSchedulesQuery {
  /** The partition to list; omitted means the anonymous bucket. */
  userId?: string | undefined;
  /** @default 50 (at most 1,000) */
  limit?: number | undefined;
  /** Opaque cursor from a previous page. */
  cursor?: string | undefined;
}

/** One page of a user's schedules, in id order. */
export interface SchedulePage {
  schedules: ScheduleRecord[];
  nextCursor: string | undefined;
}

export interface DueSchedulesQuery {
  /** Schedules with a `dueAt` at or before this time (epoch ms) are due. */
  until: number;
  /** Continue after this index key (the `cursor` of a previous page). */
  after?: string | undefined;
  /** Entries read at most (due and damaged ones). */
  limit: number;
}

/** One page of the next-tick index, in `dueAt` order, over every user (records without `dueAt` are not in it). */
export interface DueSchedules {
  due: ScheduleRecord[];
  /** Entries that failed their check (`InvalidSessionRecordError` naming the key). */
  damaged: Error[];
  /** Set when the page is full: pass it as `after` for the rest. */
  cursor: string | undefined;
  /** The earliest `dueAt` after `until` (known when `cursor` is undefined). */
  next: number | undefined;
}

/**
 * A store's schedules. Every write is one atomic write of the record, its index entry and the
 * audit entry that records it (`audit`, kept like a session's audit entries and read by
 * `readAudit`).
 */
export interface ScheduleStore {
  /**
   * Stores a new schedule at version 1 (the given `version` is ignored) and returns it as stored.
   * `ScheduleExistsError` when its user has one with that id; nothing stored.
   */
  createSchedule(record: ScheduleRecord, audit: AuditEntry): Promise<ScheduleRecord>;
  /** The schedule, or `undefined` (another user's too). */
  getSchedule(key: ScheduleKey): Promise<ScheduleRecord | undefined>;
  /** A user's schedules, one page in id order. */
  listSchedules(query: ListSchedulesQuery): Promise<SchedulePage>;
  /**
   * Replaces the schedule if its stored version is `record.version`; returns it at version + 1.
   * `ScheduleConflictError` on another version, `ScheduleNotFoundError` when gone; nothing stored.
   */
  saveSchedule(record: ScheduleRecord, audit: AuditEntry | undefined): Promise<ScheduleRecord>;
  /**
   * Deletes the schedule (its index entry with it) if its stored version is `version`.
   * `ScheduleConflictError` / `ScheduleNotFoundError` as `saveSchedule`.
   */
  deleteSchedule(key: ScheduleKey, version: number, audit: AuditEntry): Promise<void>;
  /** Due schedules from the next-tick index (`dueAt`), in time order. */
  dueSchedules(query: DueSchedulesQuery): Promise<DueSchedules>;
}
