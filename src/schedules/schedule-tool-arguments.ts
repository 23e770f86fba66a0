import { z } from 'zod';
import { ruleText } from './schedule-audit.js';
import type { ScheduleInfo } from './schedules-handle.js';

/**
 * What the model gives the schedule tools and reads back: their arguments (zod schemas, whose
 * JSON Schema is what the model sees) and a schedule as the model is shown it.
 */

/** What the model gives `create_schedule`: one of `cron`, `every`, `at`, and the message. */
export interface CreateScheduleArguments {
  cron?: string | undefined;
  timezone?: string | undefined;
  every?: string | undefined;
  at?: string | undefined;
  text: string;
  description?: string | undefined;
  maxRuns?: number | undefined;
  endAt?: string | undefined;
  /** With `allowTargets: 'new-sessions'`: the ticks go to a new session of their own. */
  newSession?: boolean | undefined;
}

/** What the model gives `cancel_schedule`. */
export interface CancelScheduleArguments {
  id: string;
}

export const CreateSchedule = z.object({
  cron: z
    .string()
    .max(200)
    .optional()
    .describe('A cron pattern (minute hour day-of-month month weekday), e.g. "0 9 * * 1"'),
  timezone: z
    .string()
    .max(100)
    .optional()
    .describe('The IANA time zone the cron is read in, e.g. "Europe/Berlin" (default UTC)'),
  every: z
    .string()
    .max(20)
    .optional()
    .describe('An interval instead of a cron: "30s", "15m", "2h" or "1d"'),
  at: z
    .string()
    .max(40)
    .optional()
    .describe('One time instead: ISO 8601 with its offset, e.g. "2026-03-02T09:00:00+01:00"'),
  text: z
    .string()
    .min(1)
    .max(4000)
    .describe('The message you receive when it fires, e.g. "Remind the user to call Bob"'),
  description: z.string().max(1000).optional().describe('A short line for the user'),
  maxRuns: z.number().int().min(1).optional().describe('Stop after this many times'),
  endAt: z.string().max(40).optional().describe('No time after this one (ISO 8601)'),
});

export const NewSession = z.object({
  newSession: z
    .boolean()
    .optional()
    .describe('Send it to a new conversation of its own instead of this one'),
});

export const CancelSchedule = z.object({
  id: z.string().min(1).max(200).describe('The id of the schedule, from list_schedules'),
});

/** A schedule as the model reads it: never another field than these. */
export function scheduleForModel(info: ScheduleInfo) {
  return {
    id: info.id,
    rule: ruleText(info.rule),
    text: info.target.type === 'message' ? info.target.text : undefined,
    description: info.description,
    next: info.nextAt === undefined ? undefined : new Date(info.nextAt).toISOString(),
    paused: info.paused,
    runs: info.runs,
    lastTick: info.lastTick && {
      at: new Date(info.lastTick.tick).toISOString(),
      outcome: info.lastTick.outcome,
    },
  };
}
