import { newId } from '../core/new-id.js';
import type { AuditEntry, AuditVia } from '../persistence/audit-log.js';
import type { ScheduleRecord, ScheduleRule, TickRecord } from '../persistence/schedule-store.js';

/** What changed a schedule: `create`, `pause`, `resume`, `delete`, or a `tick` fired. */
export type ScheduleAction = 'create' | 'pause' | 'resume' | 'delete' | 'tick';

/** Who asked for a change, as the audit entry names them. */
export interface ScheduleActor {
  /** The person or system, as the app names them. */
  by?: string | undefined;
  /** Through which path: the API (default), the inspector page or the command line. */
  via?: AuditVia | undefined;
}

/** The rule in one line: `cron 0 9 * * 1 (Europe/Berlin)`, `every 900s`, `at 2026-…Z`. */
export function ruleText(rule: ScheduleRule): string {
  if ('cron' in rule) return `cron ${rule.cron} (${rule.timezone})`;
  if ('every' in rule) return `every ${rule.every / 1000}s`;
  return `at ${new Date(rule.at).toISOString()}`;
}

/** The session (or workflow instance) a schedule's ticks go to, as its audit entries name it. */
export function targetSession(record: ScheduleRecord, tick?: number): string {
  const { target } = record;
  if (target.type === 'message') return target.sessionId;
  if (target.type === 'event') return target.instanceId;
  return tick === undefined ? target.instanceId : `${target.instanceId}-${tick}`;
}

/** A tick's one line: never the message text or event values. */
function tickText(tick: TickRecord): string {
  const missed = tick.missed ? `, ${tick.missed} missed before it` : '';
  const error = tick.error ? ` (${tick.error.code})` : '';
  return `tick ${new Date(tick.tick).toISOString()}: ${tick.outcome}${error}${missed}`;
}

/**
 * The audit entry of a schedule's change or tick, kept with it in one write: its user, the
 * target's session or instance, the run a tick started; the summary names the rule and the
 * outcome, never the message text.
 */
export function scheduleAuditEntry(
  record: ScheduleRecord,
  action: ScheduleAction,
  at: number,
  actor: ScheduleActor = {},
  tick?: TickRecord,
): AuditEntry {
  const summary =
    action === 'tick' && tick
      ? `schedule ${record.id}: ${tickText(tick)}`
      : `schedule ${record.id} ${action}d: ${ruleText(record.rule)}, ${record.target.type} target`;
  return {
    id: newId(),
    userId: record.userId,
    sessionId: tick?.sessionId ?? targetSession(record),
    runId: tick?.runId,
    at,
    kind: 'schedule',
    action,
    scheduleId: record.id,
    summary,
    ...(actor.by === undefined ? {} : { by: actor.by }),
    ...(actor.via === undefined ? {} : { via: actor.via }),
  };
}
