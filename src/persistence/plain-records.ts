import type { z } from 'zod';
import { isObject } from '../validation/option-checks.js';
import { AUDIT_KINDS, AUDIT_VIAS, type AuditEntrySchema } from './audit-log.js';
import type {
  JournalEntrySchema,
  SessionInfoSchema,
  UsageTotalsSchema,
} from './session-schemas.js';

/**
 * Hand-written checks of the stored shapes every load and save meets (the session record's
 * envelope, its info and usage totals, journal entries, audit entries), exactly as their zod schemas check
 * them: the value as the schema outputs it (its known fields only, in the schema's order), or
 * `undefined` for anything the schema would reject, which the caller then validates with the
 * schema, so a bad value gets the schema's error. In a cold process zod compiles each parser
 * on its first use (a few ms per schema, on the path of a resumed session's first message);
 * these cost well under a microsecond. `test/persistence/plain-records.test.ts` holds them to the schemas.
 */

type Fields = Record<string, unknown>;

/** A non-array object, as `z.object` requires. */
const asObject = (value: unknown): Fields | undefined => (isObject(value) ? value : undefined);

/** `z.number()`: finite. */
const isNumber = (value: unknown): value is number =>
  typeof value === 'number' && Number.isFinite(value);
/** `z.number().nonnegative()`. */
const isNonNegative = (value: unknown): value is number => isNumber(value) && value >= 0;
/** `z.number().int().nonnegative()`. */
const isCount = (value: unknown): value is number =>
  Number.isSafeInteger(value) && (value as number) >= 0;
/** `z.number().int().positive()`. */
const isPositiveInt = (value: unknown): value is number =>
  Number.isSafeInteger(value) && (value as number) > 0;
const isString = (value: unknown): value is string => typeof value === 'string';
const isNonEmpty = (value: unknown): value is string => isString(value) && value.length > 0;

const NO_FIELD = {};

/** An optional field: absent (`{}`), `undefined` or of its type (`{ key }`), else `undefined`. */
function optional<K extends string, T>(
  fields: Fields,
  key: K,
  is: (value: unknown) => value is T,
): Partial<Record<K, T>> | undefined {
  if (!(key in fields)) return NO_FIELD;
  const value = fields[key];
  return value === undefined || is(value) ? ({ [key]: value } as Partial<Record<K, T>>) : undefined;
}

type UsageTotalsOutput = z.output<typeof UsageTotalsSchema>;
type SessionInfoOutput = z.output<typeof SessionInfoSchema>;
type JournalEntryOutput = z.output<typeof JournalEntrySchema>;

/** `UsageTotalsSchema`'s output, or `undefined`. */
export function plainUsageTotals(value: unknown): UsageTotalsOutput | undefined {
  const fields = asObject(value);
  if (!fields) return undefined;
  const { turns, inputTokens, outputTokens, costUsd } = fields;
  if (!isCount(turns) || !isCount(inputTokens) || !isCount(outputTokens)) {
    return undefined;
  }
  return isNonNegative(costUsd) ? { turns, inputTokens, outputTokens, costUsd } : undefined;
}

const STATUSES: ReadonlySet<unknown> = new Set<SessionInfoOutput['status']>([
  'active',
  'suspended',
  'completed',
  'failed',
  'deleted',
]);

const isBoolean = (value: unknown): value is boolean => typeof value === 'boolean';

const isDeadline = (value: unknown): value is number =>
  isCount(value) && value <= Number.MAX_SAFE_INTEGER;

/** Whether an optional field is absent, `undefined` or of its type. */
const fits = (fields: Fields, key: string, is: (value: unknown) => boolean): boolean =>
  fields[key] === undefined || is(fields[key]);

/**
 * `SessionInfoSchema`'s output (or, with `snapshot`, the stored record's), or `undefined`. Built
 * field by field in the schema's order (an optional field present as given, `undefined` too):
 * every save checks its record here, so no part of it is copied twice.
 */
export function plainSessionInfo(value: unknown): SessionInfoOutput | undefined {
  const fields = asObject(value);
  if (!fields) return undefined;
  const { sessionId, version, status, createdAt, updatedAt, historyLength } = fields;
  if (!isNonEmpty(sessionId) || !isPositiveInt(version) || !STATUSES.has(status)) return undefined;
  if (!isNumber(createdAt) || !isNumber(updatedAt) || !isCount(historyLength)) return undefined;
  if (!fits(fields, 'userId', isString) || !fits(fields, 'parentId', isString)) return undefined;
  if (!fits(fields, 'approvalDeadline', isDeadline)) return undefined;
  if (!fits(fields, 'awaitingApproval', isBoolean)) return undefined;
  if (!fits(fields, 'workflow', isNonEmpty)) return undefined;
  const usage = plainUsageTotals(fields.usage);
  if (!usage) return undefined;
  const info: Fields = { sessionId };
  if ('userId' in fields) info.userId = fields.userId;
  info.version = version;
  info.status = status;
  info.createdAt = createdAt;
  info.updatedAt = updatedAt;
  if ('parentId' in fields) info.parentId = fields.parentId;
  info.historyLength = historyLength;
  info.usage = usage;
  if ('approvalDeadline' in fields) info.approvalDeadline = fields.approvalDeadline;
  if ('awaitingApproval' in fields) info.awaitingApproval = fields.awaitingApproval;
  if ('workflow' in fields) info.workflow = fields.workflow;
  return info as SessionInfoOutput;
}

/**
 * The stored record (`StoredSessionSchema`: the info plus an unchecked `snapshot`, which, as
 * `z.unknown()` in an object, must be present but may hold anything).
 */
export function plainStoredSession(
  value: unknown,
): (SessionInfoOutput & { snapshot: unknown }) | undefined {
  const info = plainSessionInfo(value) as (SessionInfoOutput & { snapshot: unknown }) | undefined;
  if (!info || !('snapshot' in (value as Fields))) return undefined;
  info.snapshot = (value as Fields).snapshot; // the last field, as the schema orders it
  return info;
}

/** `SessionEnvelopeSchema`'s output for schema version `current`, or `undefined`. */
export function plainSessionEnvelope(
  value: unknown,
  current: number,
):
  | {
      schemaVersion: number;
      machineVersion: string;
      record: SessionInfoOutput & { snapshot: unknown };
    }
  | undefined {
  const fields = asObject(value);
  if (!fields || fields.schemaVersion !== current || !isString(fields.machineVersion)) {
    return undefined;
  }
  const record = plainStoredSession(fields.record);
  return record && { schemaVersion: current, machineVersion: fields.machineVersion, record };
}

const KINDS: ReadonlySet<unknown> = new Set<JournalEntryOutput['kind']>([
  'model',
  'tool',
  'approval',
  'guardrail',
  'event',
  'step',
]);

/** `JournalEntrySchema`'s output, or `undefined`. */
export function plainJournalEntry(value: unknown): JournalEntryOutput | undefined {
  const fields = asObject(value);
  if (!fields) return undefined;
  const { runId, step, kind, at } = fields;
  if (!isNonEmpty(runId) || !isCount(step) || !KINDS.has(kind) || !isNumber(at)) return undefined;
  if (!('output' in fields)) return undefined; // `z.unknown()`: present, holding anything
  const startedAt = optional(fields, 'startedAt', isNumber);
  const restarts = optional(fields, 'restarts', isPositiveInt);
  const retries = optional(fields, 'retries', isPositiveInt);
  if (!startedAt || !restarts || !retries) return undefined;
  return {
    runId,
    step,
    kind: kind as JournalEntryOutput['kind'],
    output: fields.output,
    at,
    ...startedAt,
    ...restarts,
    ...retries,
  };
}

type AuditEntryOutput = z.output<typeof AuditEntrySchema>;

const PERMISSIONS: ReadonlySet<unknown> = new Set(['allow', 'ask', 'deny']);
const isStrings = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every(isString);

/**
 * `AuditEntrySchema`'s fields in its order: name, check, and whether it may be absent. The
 * kinds and vias are read from `audit-log.ts` at call time (it imports this module).
 */
const AUDIT_FIELDS: readonly [string, (value: unknown) => boolean, 'optional'?][] = [
  ['id', isNonEmpty],
  ['userId', isString, 'optional'],
  ['sessionId', isNonEmpty],
  ['runId', isNonEmpty, 'optional'],
  ['at', isDeadline],
  ['kind', (value) => (AUDIT_KINDS as readonly unknown[]).includes(value)],
  ['summary', isString],
  ['action', isString, 'optional'],
  ['tool', isString, 'optional'],
  ['callId', isString, 'optional'],
  ['agentPath', isStrings, 'optional'],
  ['permission', (value) => PERMISSIONS.has(value), 'optional'],
  ['by', isString, 'optional'],
  ['via', (value) => (AUDIT_VIAS as readonly unknown[]).includes(value), 'optional'],
  ['scheduleId', isNonEmpty, 'optional'],
];

/** `AuditEntrySchema`'s output (what a store checks before writing an entry), or `undefined`. */
export function plainAuditEntry(value: unknown): AuditEntryOutput | undefined {
  const fields = asObject(value);
  if (!fields) return undefined;
  const out: Fields = {};
  for (const [key, is, optionalField] of AUDIT_FIELDS) {
    const field = fields[key];
    if (optionalField && (!(key in fields) || field === undefined)) {
      if (key in fields) out[key] = undefined;
    } else if (!is(field)) {
      return undefined;
    } else {
      out[key] = Array.isArray(field) ? [...(field as unknown[])] : field; // zod copies arrays
    }
  }
  return out as AuditEntryOutput;
}
