import { z } from 'zod';
import type { SameShape, Tied } from '../validation/same-shape.js';
import { InvalidSessionRecordError } from '../errors/session-errors.js';
import type { ErrorScope } from '../errors/agentstate-error.js';
import { UsageTotals as UsageTotalsSchema } from '../machines/schemas/run-schemas.js';
import { firstField } from '../machines/schemas/stored-value-checks.js';
import { openValue, sealValue } from './sealed-value.js';
import type { AuditEntry, AuditEntrySchema } from './audit-log.js';
import type { StoredSessionSchema } from './session-record-codec.js';
import type {
  JournalEntry,
  SessionInfo,
  SessionRecord,
  SessionStatus,
  UsageTotals,
} from './session-store.js';

/**
 * zod schemas of every value the session stores write, checked again on read: what can be
 * checked is (token counts are non-negative safe integers, costs finite and non-negative), so
 * that a value resealed around impossible content is refused like a damaged one.
 */

/** A session's or a user's usage totals: the session machine's own, defined once there. */
export { UsageTotalsSchema };

export const SessionStatusSchema = z.enum([
  'active',
  'suspended',
  'completed',
  'failed',
  'deleted',
] as const satisfies readonly SessionStatus[]);

export const SessionInfoSchema = z.lazy(() =>
  z.object({
    sessionId: z.string().min(1),
    userId: z.string().optional(),
    version: z.number().int().positive(),
    status: SessionStatusSchema,
    createdAt: z.number(),
    updatedAt: z.number(),
    parentId: z.string().optional(),
    historyLength: z.number().int().nonnegative(),
    usage: UsageTotalsSchema,
    approvalDeadline: z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER).optional(),
    awaitingApproval: z.boolean().optional(),
    workflow: z.string().min(1).optional(),
  }),
);

export const JournalEntrySchema = z.lazy(() =>
  z.object({
    runId: z.string().min(1),
    step: z.number().int().nonnegative(),
    kind: z.enum(['model', 'tool', 'approval', 'guardrail', 'event', 'step']),
    output: z.unknown(),
    at: z.number(),
    startedAt: z.number().optional(),
    restarts: z.number().int().positive().optional(),
    retries: z.number().int().positive().optional(),
  }),
);

/**
 * The store's record types, tied to these schemas by the compiler like the machines' stored
 * shapes (`machines/stored-shapes.ts`): a field changed on one side only fails to compile.
 */
export type StoredRecordShapes = [
  Tied<SameShape<SessionStatus, z.output<typeof SessionStatusSchema>>>,
  Tied<SameShape<SessionInfo, z.output<typeof SessionInfoSchema>>>,
  Tied<SameShape<JournalEntry, z.output<typeof JournalEntrySchema>>>,
  Tied<SameShape<Omit<SessionRecord, 'machineVersion'>, z.output<typeof StoredSessionSchema>>>,
  Tied<SameShape<AuditEntry, z.output<typeof AuditEntrySchema>>>,
];

/** Copies exactly the SessionInfo fields (optional ones present as `undefined`). */
export function toSessionInfo(value: z.output<typeof SessionInfoSchema>): SessionInfo {
  return {
    sessionId: value.sessionId,
    userId: value.userId,
    version: value.version,
    status: value.status,
    createdAt: value.createdAt,
    updatedAt: value.updatedAt,
    parentId: value.parentId,
    historyLength: value.historyLength,
    usage: toUsageTotals(value.usage),
    approvalDeadline: value.approvalDeadline,
    awaitingApproval: value.awaitingApproval,
    workflow: value.workflow,
  };
}

export function toUsageTotals(value: z.output<typeof UsageTotalsSchema>): UsageTotals {
  return {
    turns: value.turns,
    inputTokens: value.inputTokens,
    outputTokens: value.outputTokens,
    costUsd: value.costUsd,
  };
}

export function toJournalEntry(value: z.output<typeof JournalEntrySchema>): JournalEntry {
  return {
    runId: value.runId,
    step: value.step,
    kind: value.kind,
    output: value.output,
    at: value.at,
    ...(value.startedAt === undefined ? {} : { startedAt: value.startedAt }),
    ...(value.restarts === undefined ? {} : { restarts: value.restarts }),
    ...(value.retries === undefined ? {} : { retries: value.retries }),
  };
}

/** Parses JSON text read at `key`; anything unparseable throws `InvalidSessionRecordError`. */
export function parseStoredJson(key: string, text: string, scope: ErrorScope = {}): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new InvalidSessionRecordError(key, 'not valid JSON', { ...scope, cause: error });
  }
}

/** Validates a stored value; a mismatch throws `InvalidSessionRecordError` naming key and field. */
export function validateStored<S extends z.ZodType>(
  key: string,
  value: unknown,
  schema: S,
  scope: ErrorScope = {},
): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) {
    throw new InvalidSessionRecordError(key, z.prettifyError(result.error), {
      ...scope,
      field: firstField(result.error),
      cause: result.error,
    });
  }
  return result.data;
}

/** A stored value with its seal checked and its JSON parsed; `legacy` if it had no seal. */
export function readStored(
  key: string,
  text: string,
  scope: ErrorScope = {},
): { value: unknown; legacy: boolean } {
  const { json, legacy } = openValue(key, text, scope);
  return { value: parseStoredJson(key, json, scope), legacy };
}

/** Checks the seal, parses and validates a stored value. */
export function decodeStored<S extends z.ZodType>(
  key: string,
  text: string,
  schema: S,
  scope: ErrorScope = {},
): z.output<S> {
  return validateStored(key, readStored(key, text, scope).value, schema, scope);
}

/**
 * `decodeStored` with a hand-written check tried first (`plain-records.ts`), which returns the
 * schema's output or `undefined`; the schema then runs only to name what is wrong.
 */
export function decodeStoredWith<S extends z.ZodType>(
  key: string,
  text: string,
  schema: S,
  fast: (value: unknown) => z.output<S> | undefined,
  scope: ErrorScope = {},
): z.output<S> {
  const { value } = readStored(key, text, scope);
  return fast(value) ?? validateStored(key, value, schema, scope);
}

/** The stored form of `value` at `key`: its JSON text under an integrity seal. */
export function encodeStored(key: string, value: unknown): string {
  return sealValue(key, JSON.stringify(value));
}

/** Validates a value before it is written; a mismatch is a programmer error (`TypeError`). */
export function checkBeforeWrite<S extends z.ZodType>(
  what: string,
  value: unknown,
  schema: S,
): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) {
    throw new TypeError(`Invalid ${what}: ${z.prettifyError(result.error)}`);
  }
  return result.data;
}
