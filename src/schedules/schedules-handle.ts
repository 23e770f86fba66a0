import { systemClock, type Clock } from '../core/clock.js';
import {
  InvalidScheduleError,
  ScheduleConflictError,
  ScheduleNotFoundError,
  SchedulesUnsupportedError,
} from '../errors/schedule-errors.js';
import { SessionNotFoundError } from '../errors/session-errors.js';
import type {
  ScheduleKey,
  ScheduleRecord,
  ScheduleRule,
  ScheduleStore,
  TickRecord,
} from '../persistence/schedule-store.js';
import type { SessionStore } from '../persistence/session-store.js';
import { hasSchedules } from '../persistence/store-supports.js';
import { scheduleAuditEntry, type ScheduleActor } from './schedule-audit.js';
import { newScheduleRecord, type ScheduleInput } from './schedule-input.js';
import { nextTicks } from './schedule-rule.js';
import { nextTickWithin, withDueAt } from './tick-plan.js';

/** A schedule as the handle shows it. */
export interface ScheduleInfo {
  id: string;
  userId: string | undefined;
  rule: ScheduleRule;
  target: ScheduleRecord['target'];
  overlap: ScheduleRecord['overlap'];
  catchUp: ScheduleRecord['catchUp'];
  endAt: number | undefined;
  maxRuns: number | undefined;
  description: string | undefined;
  paused: boolean;
  /** The next tick (epoch ms); `undefined` once ended (or paused: see `paused`). */
  nextAt: number | undefined;
  /** Ticks fired (or being fired). */
  runs: number;
  lastTick: TickRecord | undefined;
  /** Ticks being fired now (claimed by a scheduler). */
  firing: number[];
  createdAt: number;
  updatedAt: number;
  version: number;
}

/** Whose schedule: its user (omitted: the anonymous bucket). */
export interface ScheduleScope {
  userId?: string | undefined;
}

/** Options of `openSchedules`. */
export interface SchedulesOptions {
  /** The clock of `now` (rules, `at` in the past, audit times). @default the system clock */
  clock?: Clock | undefined;
}

/** The schedules of a store, as an app or an operator manages them. */
export interface SchedulesHandle {
  /**
   * Creates a schedule (`InvalidScheduleError` naming the field that is wrong,
   * `ScheduleExistsError` for an id its user has); nothing stored on error.
   */
  create(input: ScheduleInput, actor?: ScheduleActor): Promise<ScheduleInfo>;
  /** `ScheduleNotFoundError` when its user has none with that id. */
  get(id: string, scope?: ScheduleScope): Promise<ScheduleInfo>;
  list(
    query?: ScheduleScope & { limit?: number | undefined; cursor?: string | undefined },
  ): Promise<{ schedules: ScheduleInfo[]; nextCursor: string | undefined }>;
  /** Stops its ticks (ticks being fired finish). */
  pause(id: string, scope?: ScheduleScope & ScheduleActor): Promise<ScheduleInfo>;
  /** Its next tick is the first from now: ticks due while paused are not caught up. */
  resume(id: string, scope?: ScheduleScope & ScheduleActor): Promise<ScheduleInfo>;
  delete(id: string, scope?: ScheduleScope & ScheduleActor): Promise<void>;
  /** Its next `count` ticks (default 5), epoch ms, within `endAt` and `maxRuns`. */
  next(id: string, scope?: ScheduleScope & { count?: number | undefined }): Promise<number[]>;
}

/** A record as the handle shows it. */
export function scheduleInfo(record: ScheduleRecord): ScheduleInfo {
  return {
    id: record.id,
    userId: record.userId,
    rule: record.rule,
    target: record.target,
    overlap: record.overlap,
    catchUp: record.catchUp,
    endAt: record.endAt,
    maxRuns: record.maxRuns,
    description: record.description,
    paused: record.paused,
    nextAt: record.nextAt,
    runs: record.runs,
    lastTick: record.lastTick,
    firing: (record.claims ?? []).map((c) => c.tick),
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    version: record.version,
  };
}

const MAX_TRIES = 16;

/** The store's schedules, or `SchedulesUnsupportedError`. */
export function scheduleStoreOf(store: SessionStore): SessionStore & ScheduleStore {
  if (!hasSchedules(store)) throw new SchedulesUnsupportedError(store.constructor?.name ?? 'store');
  return store;
}

/**
 * The schedules of `store`: create, list, pause, resume, delete, and their next fire times.
 * Every change is written with its audit entry; a change that meets a scheduler's write is
 * read again and applied again. Ticks are fired by `agent.startScheduler()` (message targets)
 * and `workflows().startScheduler()` (workflow targets) in any process on the store.
 * @example
 * const schedules = openSchedules(store);
 * await schedules.create({ userId: 'u1', cron: '0 9 * * 1', timezone: 'Europe/Berlin',
 *   target: { type: 'message', agent: 'digest', sessionId: 'weekly', text: 'Send the digest', create: true } });
 */
export function openSchedules(
  store: SessionStore,
  options: SchedulesOptions = {},
): SchedulesHandle {
  const schedules = scheduleStoreOf(store);
  const clock = options.clock ?? systemClock;
  const key = (id: string, scope: ScheduleScope = {}): ScheduleKey => {
    if (typeof id !== 'string' || id.length === 0)
      throw new TypeError('schedules: an id must be a non-empty string');
    return { id, userId: scope.userId };
  };
  const read = async (k: ScheduleKey): Promise<ScheduleRecord> => {
    const record = await schedules.getSchedule(k);
    if (!record) throw new ScheduleNotFoundError(k.id);
    return record;
  };
  /** Reads, changes and writes with its audit entry; again on a scheduler's write meanwhile. */
  const change = async (
    k: ScheduleKey,
    action: 'pause' | 'resume',
    actor: ScheduleActor,
    apply: (record: ScheduleRecord, now: number) => ScheduleRecord,
  ): Promise<ScheduleInfo> => {
    for (let attempt = 1; ; attempt++) {
      const record = await read(k);
      const now = clock.now();
      const next = withDueAt({ ...apply(record, now), updatedAt: now });
      try {
        return scheduleInfo(
          await schedules.saveSchedule(next, scheduleAuditEntry(next, action, now, actor)),
        );
      } catch (error) {
        if (!(error instanceof ScheduleConflictError) || attempt >= MAX_TRIES) throw error;
      }
    }
  };
  return {
    async create(input, actor = {}) {
      const now = clock.now();
      const record = newScheduleRecord(input, now);
      const { target } = input;
      if (target.type === 'message' && target.create !== true) {
        // Another user's session, like none, is not this user's: a typed error, nothing stored.
        const exists = await store
          .load({ sessionId: target.sessionId, userId: record.userId })
          .then(
            () => true,
            (error: unknown) => {
              if (error instanceof SessionNotFoundError) return false;
              throw error;
            },
          );
        if (!exists) {
          throw new InvalidScheduleError(
            record.id,
            'target.sessionId',
            `"${target.sessionId}" is not a session of this user (give target.create: true for a new one)`,
          );
        }
      }
      const created = await schedules.createSchedule(
        record,
        scheduleAuditEntry(record, 'create', now, actor),
      );
      return scheduleInfo(created);
    },
    async get(id, scope) {
      return scheduleInfo(await read(key(id, scope)));
    },
    async list(query = {}) {
      const page = await schedules.listSchedules(query);
      return { schedules: page.schedules.map(scheduleInfo), nextCursor: page.nextCursor };
    },
    pause(id, scope = {}) {
      return change(key(id, scope), 'pause', scope, (record) => ({ ...record, paused: true }));
    },
    resume(id, scope = {}) {
      return change(key(id, scope), 'resume', scope, (record, now) => {
        const nextAt = record.paused ? nextTickWithin(record, now, record.runs) : record.nextAt;
        const { nextAt: _old, ...rest } = record;
        return { ...rest, paused: false, ...(nextAt === undefined ? {} : { nextAt }) };
      });
    },
    async delete(id, scope = {}) {
      const k = key(id, scope);
      for (let attempt = 1; ; attempt++) {
        const record = await read(k);
        const now = clock.now();
        try {
          await schedules.deleteSchedule(
            k,
            record.version,
            scheduleAuditEntry(record, 'delete', now, scope),
          );
          return;
        } catch (error) {
          if (!(error instanceof ScheduleConflictError) || attempt >= MAX_TRIES) throw error;
        }
      }
    },
    async next(id, scope = {}) {
      const count = scope.count ?? 5;
      if (!Number.isInteger(count) || count < 1 || count > 1000) {
        throw new TypeError('schedules.next(): count must be an integer from 1 to 1,000');
      }
      const record = await read(key(id, scope));
      if (record.nextAt === undefined) return [];
      const ticks = [record.nextAt, ...nextTicks(record.rule, record.nextAt, count - 1)];
      const left = record.maxRuns === undefined ? count : Math.max(0, record.maxRuns - record.runs);
      return ticks.filter((t) => record.endAt === undefined || t <= record.endAt).slice(0, left);
    },
  };
}
