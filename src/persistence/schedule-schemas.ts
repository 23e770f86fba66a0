import { z } from 'zod';
import type { ScheduleRecord } from './schedule-store.js';

/**
 * The stored form of a schedule, checked before every write (a mismatch is a `TypeError`: the
 * runtime checked it first) and on every read (`InvalidSessionRecordError` naming the key).
 * The same in every store.
 */

const time = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);
const id = z.string().min(1).max(200);
const plainObject = z.record(z.string(), z.unknown());

export const ScheduleRuleSchema = z.union([
  z.strictObject({ cron: z.string().min(1).max(200), timezone: z.string().min(1).max(100) }),
  z.strictObject({ every: z.number().int().min(1000).max(Number.MAX_SAFE_INTEGER), from: time }),
  z.strictObject({ at: time }),
]);

export const ScheduleTargetSchema = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('message'),
    agent: z.string().min(1).max(256),
    sessionId: id,
    text: z.string().min(1).max(32_000),
    metadata: plainObject.optional(),
  }),
  z.strictObject({
    type: z.literal('event'),
    workflow: z.string().min(1).max(256),
    instanceId: id,
    event: z.looseObject({ type: z.string().min(1) }),
  }),
  z.strictObject({
    type: z.literal('start'),
    workflow: z.string().min(1).max(256),
    instanceId: z.string().min(1).max(200),
    input: z.unknown().optional(),
  }),
]);

export const OverlapPolicySchema = z.enum(['skip', 'queue', 'interrupt']);

export const CatchUpPolicySchema = z.union([
  z.enum(['none', 'latest']),
  z.strictObject({ all: z.number().int().min(1).max(10_000) }),
]);

const TickRecordSchema = z.strictObject({
  tick: time,
  firedAt: time,
  outcome: z.enum(['started', 'queued', 'interrupted', 'skipped', 'missed', 'failed']),
  runId: z.string().min(1).optional(),
  sessionId: z.string().min(1).optional(),
  missed: z.number().int().nonnegative().optional(),
  error: z.strictObject({ code: z.string(), message: z.string() }).optional(),
});

export const ScheduleRecordSchema = z.strictObject({
  id,
  userId: z.string().min(1).max(256).optional(),
  rule: ScheduleRuleSchema,
  target: ScheduleTargetSchema,
  overlap: OverlapPolicySchema,
  catchUp: CatchUpPolicySchema,
  endAt: time.optional(),
  maxRuns: z.number().int().min(1).optional(),
  description: z.string().max(1000).optional(),
  paused: z.boolean(),
  nextAt: time.optional(),
  dueAt: time.optional(),
  runs: z.number().int().nonnegative(),
  lastTick: TickRecordSchema.optional(),
  claims: z
    .array(
      z.strictObject({
        tick: time,
        owner: z.string().min(1),
        until: time,
        missed: z.number().int().nonnegative().optional(),
      }),
    )
    .max(100)
    .optional(),
  createdAt: time,
  updatedAt: time,
  version: z.number().int().min(1),
});

/** A record as JSON keeps it: `undefined` fields dropped (`userId` absent for the anonymous bucket). */
export function scheduleJson(record: ScheduleRecord): ScheduleRecord {
  return JSON.parse(JSON.stringify(record)) as ScheduleRecord;
}

/** The record as read back: `userId` present (`undefined` for the anonymous bucket). */
export function scheduleRead(value: z.output<typeof ScheduleRecordSchema>): ScheduleRecord {
  return { ...value, userId: value.userId };
}
