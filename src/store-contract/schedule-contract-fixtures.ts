import type { AuditEntry } from '../persistence/audit-log.js';
import type { ScheduleRecord, ScheduleStore } from '../persistence/schedule-store.js';
import type { SessionStore } from '../persistence/session-store.js';
import { hasSchedules } from '../persistence/store-supports.js';

/** A schedule for the contract's tests: every minute from 0, next tick at `nextAt`. */
export function contractSchedule(
  id: string,
  nextAt: number | undefined,
  extra: Partial<ScheduleRecord> = {},
): ScheduleRecord {
  return {
    id,
    userId: 'alice',
    rule: { every: 60_000, from: 0 },
    target: { type: 'message', agent: 'assistant', sessionId: `s-${id}`, text: 'tick' },
    overlap: 'skip',
    catchUp: 'latest',
    paused: extra.paused ?? false,
    ...(nextAt === undefined ? {} : { nextAt }),
    ...(nextAt === undefined || extra.paused === true ? {} : { dueAt: nextAt }),
    runs: 0,
    createdAt: 1,
    updatedAt: 1,
    version: 1,
    ...extra,
  };
}

/** The audit entry of a schedule's change, for the contract's writes. */
export function scheduleAudit(record: ScheduleRecord, action: string, at = 1): AuditEntry {
  return {
    id: `${record.id}-${action}-${at}`.padEnd(26, '0').slice(0, 26),
    userId: record.userId,
    sessionId: 'sessionId' in record.target ? record.target.sessionId : record.target.instanceId,
    runId: undefined,
    at,
    kind: 'schedule',
    action,
    scheduleId: record.id,
    summary: `schedule ${record.id}: ${action}`,
  };
}

/** The store under test as the schedule store it claims to be. */
export function schedulesOf(name: string, store: SessionStore): SessionStore & ScheduleStore {
  if (!hasSchedules(store)) throw new Error(`${name} keeps no schedules`);
  return store;
}
