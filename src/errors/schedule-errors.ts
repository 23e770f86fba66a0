import { AgentStateError } from './agentstate-error.js';

/**
 * The typed errors of schedules (`openSchedules`, the schedule tools, a store's `schedules`
 * capability). None leaves anything stored changed.
 */

/**
 * A schedule that cannot be kept: a cron pattern that does not parse, a time zone that is not
 * an IANA zone, an interval under a second, an `at` in the past, a target of another user, a
 * policy that is not one of its values. Names the schedule (`scheduleId`), the field and what is
 * wrong.
 */
export class InvalidScheduleError extends AgentStateError {
  constructor(
    readonly scheduleId: string | undefined,
    readonly field: string,
    readonly problem: string,
  ) {
    super(
      'INVALID_SCHEDULE',
      `${scheduleId === undefined ? 'Schedule' : `Schedule "${scheduleId}"`}: ${field} ${problem}`,
    );
  }
}

/** A schedule created with an id its user already has; nothing stored. */
export class ScheduleExistsError extends AgentStateError {
  constructor(readonly scheduleId: string) {
    super('SCHEDULE_EXISTS', `Schedule "${scheduleId}" exists already`);
  }
}

/** No schedule with that id for that user (another user's behaves the same); nothing stored. */
export class ScheduleNotFoundError extends AgentStateError {
  constructor(readonly scheduleId: string) {
    super('SCHEDULE_NOT_FOUND', `No schedule "${scheduleId}"`);
  }
}

/**
 * A schedule write expected another version than the stored one (another process fired a tick
 * or an operator changed it first). The scheduler reads it again; an app decides.
 */
export class ScheduleConflictError extends AgentStateError {
  constructor(
    readonly scheduleId: string,
    readonly expectedVersion: number,
    readonly actualVersion: number | undefined,
  ) {
    super(
      'SCHEDULE_CONFLICT',
      `Schedule "${scheduleId}" is at version ${String(actualVersion ?? 'none')}, not ${expectedVersion}: another writer changed it first`,
    );
  }
}

/** The store has no schedules capability (its `supports` does not claim `schedules`). */
export class SchedulesUnsupportedError extends AgentStateError {
  constructor(readonly store: string) {
    super(
      'SCHEDULES_UNSUPPORTED',
      `The store (${store}) keeps no schedules: use the LevelDB, memory or PostgreSQL store, or one whose supports claims schedules`,
    );
  }
}

/**
 * A schedule the model asked for (`create_schedule`) past the app's limit
 * (`scheduleTools({ maxSchedulesPerUser })`): its user has that many schedules that have not
 * ended. Back to the model as the tool's error; nothing stored.
 */
export class ScheduleLimitError extends AgentStateError {
  constructor(readonly limit: number) {
    super(
      'SCHEDULE_LIMIT',
      `This user has ${limit} schedules already, the most allowed: cancel one before creating another`,
    );
  }
}
