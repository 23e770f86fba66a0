import { InvalidScheduleError } from '../errors/schedule-errors.js';
import { newId } from '../core/new-id.js';
import { isPlainJson } from '../validation/plain-json.js';
import { isPlainName } from '../validation/plain-name.js';
import type {
  CatchUpPolicy,
  OverlapPolicy,
  ScheduleRecord,
  ScheduleTarget,
} from '../persistence/schedule-store.js';
import { checkedRule, type ScheduleRuleInput } from './schedule-rule.js';
import { nextTickWithin, withDueAt } from './tick-plan.js';

/** What a tick does, as a caller writes it. */
export type ScheduleTargetInput = ScheduleTarget & {
  /**
   * A message target's session may be new (else it must be a session of the schedule's user:
   * another user's, or none, is `InvalidScheduleError`). Not stored.
   */
  create?: boolean | undefined;
};

/** A schedule to create (`SchedulesHandle.create`, the `create_schedule` tool, the CLI). */
export interface ScheduleInput extends ScheduleRuleInput {
  /** 1 to 200 characters, unique within its user. @default a new ULID */
  id?: string | undefined;
  /** The owner; the tick runs as this user. Omitted: the anonymous bucket. */
  userId?: string | undefined;
  target: ScheduleTargetInput;
  /** What a tick does when its target is still busy. @default 'skip' */
  overlap?: OverlapPolicy | undefined;
  /** What happens to ticks missed while no scheduler ran. @default 'latest' */
  catchUp?: CatchUpPolicy | undefined;
  /** No tick after this time. */
  endAt?: number | Date | undefined;
  /** No more ticks once this many fired. */
  maxRuns?: number | undefined;
  /** A line for humans (at most 1,000 characters). */
  description?: string | undefined;
}

const OVERLAPS: readonly OverlapPolicy[] = ['skip', 'queue', 'interrupt'];

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The target checked, in its stored form (without `create`). */
function checkedTarget(id: string, target: unknown): ScheduleTarget {
  const invalid = (field: string, problem: string) =>
    new InvalidScheduleError(id, `target.${field}`, problem);
  if (!isObject(target)) throw new InvalidScheduleError(id, 'target', 'must be an object');
  const text = (field: string, max = 256): string => {
    const value = target[field];
    if (typeof value !== 'string' || value.length === 0 || value.length > max) {
      throw invalid(field, `must be a string of 1 to ${max} characters`);
    }
    return value;
  };
  switch (target['type']) {
    case 'message': {
      const metadata = target['metadata'];
      if (metadata !== undefined && (!isObject(metadata) || !isPlainJson(metadata))) {
        throw invalid('metadata', 'must be a plain-JSON object');
      }
      return {
        type: 'message',
        agent: text('agent'),
        sessionId: text('sessionId', 200),
        text: text('text', 32_000),
        ...(metadata === undefined ? {} : { metadata: metadata }),
      };
    }
    case 'event': {
      const event = target['event'];
      if (!isObject(event) || typeof event['type'] !== 'string' || event['type'].length === 0) {
        throw invalid('event', 'must be a plain-JSON object with a string type');
      }
      if (!isPlainJson(event)) throw invalid('event', 'must be plain JSON');
      return {
        type: 'event',
        workflow: text('workflow'),
        instanceId: text('instanceId', 200),
        event: event as { type: string } & Record<string, unknown>,
      };
    }
    case 'start': {
      const input = target['input'];
      if (input !== undefined && !isPlainJson(input)) throw invalid('input', 'must be plain JSON');
      return {
        type: 'start',
        workflow: text('workflow'),
        instanceId: text('instanceId', 180),
        ...(input === undefined ? {} : { input }),
      };
    }
    default:
      throw invalid(
        'type',
        `must be 'message', 'event' or 'start', not ${JSON.stringify(target['type'])}`,
      );
  }
}

function checkedCatchUp(id: string, catchUp: unknown): CatchUpPolicy {
  if (catchUp === 'none' || catchUp === 'latest') return catchUp;
  if (isObject(catchUp) && Object.keys(catchUp).length === 1) {
    const all = catchUp['all'];
    if (typeof all === 'number' && Number.isInteger(all) && all >= 1 && all <= 10_000)
      return { all };
  }
  throw new InvalidScheduleError(
    id,
    'catchUp',
    `must be 'none', 'latest' or { all: n } with n from 1 to 10,000, not ${JSON.stringify(catchUp)}`,
  );
}

/**
 * A new schedule's record from what a caller wrote, every field checked
 * (`InvalidScheduleError` naming it): the rule, the target, the policies, `endAt` after now,
 * `maxRuns` a positive integer. Its first tick is the rule's first after `now`.
 */
export function newScheduleRecord(input: ScheduleInput, now: number): ScheduleRecord {
  if (!isObject(input)) throw new TypeError('schedules.create(): the schedule must be an object');
  const id = input.id ?? newId();
  if (!isPlainName(id, 200)) {
    throw new InvalidScheduleError(
      undefined,
      'id',
      'must be 1 to 200 characters, no control characters',
    );
  }
  const { userId } = input;
  if (userId !== undefined && !isPlainName(userId, 200)) {
    throw new InvalidScheduleError(
      id,
      'userId',
      'must be 1 to 200 characters, no control characters',
    );
  }
  const rule = checkedRule(input, now, id);
  const target = checkedTarget(id, input.target);
  const overlap = input.overlap ?? 'skip';
  if (!OVERLAPS.includes(overlap)) {
    throw new InvalidScheduleError(
      id,
      'overlap',
      `must be 'skip', 'queue' or 'interrupt', not ${JSON.stringify(overlap)}`,
    );
  }
  if (target.type === 'start' && overlap === 'queue') {
    throw new InvalidScheduleError(
      id,
      'overlap',
      "'queue' does not apply to a workflow start (each tick starts its own instance): use 'skip' or 'interrupt'",
    );
  }
  const catchUp = checkedCatchUp(id, input.catchUp ?? 'latest');
  const endAt = input.endAt instanceof Date ? input.endAt.getTime() : input.endAt;
  if (endAt !== undefined && (!Number.isSafeInteger(endAt) || endAt <= now)) {
    throw new InvalidScheduleError(id, 'endAt', 'must be a time after now');
  }
  const { maxRuns, description } = input;
  if (maxRuns !== undefined && (!Number.isSafeInteger(maxRuns) || maxRuns < 1)) {
    throw new InvalidScheduleError(id, 'maxRuns', 'must be a positive integer');
  }
  if (description !== undefined && (typeof description !== 'string' || description.length > 1000)) {
    throw new InvalidScheduleError(
      id,
      'description',
      'must be a string of at most 1,000 characters',
    );
  }
  const first = nextTickWithin({ rule, endAt, maxRuns }, now, 0);
  if (first === undefined) {
    throw new InvalidScheduleError(
      id,
      'endAt',
      'is before the rule’s first tick: it would never fire',
    );
  }
  return withDueAt({
    id,
    userId,
    rule,
    target,
    overlap,
    catchUp,
    ...(endAt === undefined ? {} : { endAt }),
    ...(maxRuns === undefined ? {} : { maxRuns }),
    ...(description === undefined ? {} : { description }),
    paused: false,
    nextAt: first,
    runs: 0,
    createdAt: now,
    updatedAt: now,
    version: 1,
  });
}
