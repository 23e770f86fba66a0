import { z } from 'zod';
import { InvalidSessionRecordError } from '../errors/session-errors.js';
import { encodeKeyPart, ownerPart } from './session-keys.js';
import { plainAuditEntry } from './plain-records.js';
import { checkBeforeWrite, decodeStored, encodeStored } from './session-schemas.js';

/**
 * What an audit entry records: a session action (`create`, `sendMessage`, `suspendSession`,
 * `forkSession`, `deleteSession`, `purge`, `changeBudget`, ...), a tool call with its
 * permission decision, a permission decision of the policy (`permission`: allow or ask;
 * `denial`: deny), a human's approval or rejection of a pending call, and an operator's
 * resolution of a call in doubt (`in_doubt`: retry, result or fail), and a schedule's change or
 * tick (`schedule`: `action` `create`, `pause`, `resume`, `delete` or `tick`).
 */
export type AuditKind =
  | 'session'
  | 'tool_call'
  | 'permission'
  | 'denial'
  | 'approval'
  | 'rejection'
  | 'in_doubt'
  | 'schedule';

/** Through which path a human decided: the API, the inspector page or the command line. */
export type AuditVia = 'api' | 'page' | 'cli';

export const AUDIT_KINDS = [
  'session',
  'tool_call',
  'permission',
  'denial',
  'approval',
  'rejection',
  'in_doubt',
  'schedule',
] as const satisfies readonly AuditKind[];

export const AUDIT_VIAS = ['api', 'page', 'cli'] as const satisfies readonly AuditVia[];

/**
 * One audit entry. Written in the same atomic batch as the step it records, keyed by its
 * owner (`userId` leads the key), kept when its session is deleted or purged. Plain JSON.
 */
export interface AuditEntry {
  /** Unique within its owner and time (a ULID). */
  id: string;
  /** The session's owner (`undefined`: the anonymous bucket). */
  userId: string | undefined;
  sessionId: string;
  /** The run the entry belongs to (none for session actions outside a run). */
  runId: string | undefined;
  /** Epoch milliseconds. */
  at: number;
  kind: AuditKind;
  /** One line for humans, redacted with the agent's `redact`; never argument values. */
  summary: string;
  /** The session action (`kind: 'session'`). */
  action?: string | undefined;
  /** The tool and call (tool calls, permission decisions, approvals and rejections). */
  tool?: string | undefined;
  callId?: string | undefined;
  /** The agents from the top-level one down to the one whose call it is. */
  agentPath?: string[] | undefined;
  /** The permission policy's decision on the call, when a policy is set. */
  permission?: 'allow' | 'ask' | 'deny' | undefined;
  /** Who decided an approval or rejection (as the app named them). */
  by?: string | undefined;
  via?: AuditVia | undefined;
  /** The schedule (`kind: 'schedule'`); `sessionId` is then its target's session or instance. */
  scheduleId?: string | undefined;
}

export const AuditEntrySchema = z.lazy(() =>
  z.object({
    id: z.string().min(1),
    userId: z.string().optional(),
    sessionId: z.string().min(1),
    runId: z.string().min(1).optional(),
    at: z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER),
    kind: z.enum(AUDIT_KINDS),
    summary: z.string(),
    action: z.string().optional(),
    tool: z.string().optional(),
    callId: z.string().optional(),
    agentPath: z.array(z.string()).optional(),
    permission: z.enum(['allow', 'ask', 'deny']).optional(),
    by: z.string().optional(),
    via: z.enum(AUDIT_VIAS).optional(),
    scheduleId: z.string().min(1).optional(),
  }),
);

/** The stored form: `runId` always present (`null` outside a run), so removing it is damage. */
const StoredAuditSchema = z.lazy(() =>
  AuditEntrySchema.unwrap().extend({ runId: z.string().min(1).nullable() }),
);

/** An entry validated (`TypeError`) and sealed at its key: what a store writes. */
export function storedAudit(entry: AuditEntry): { key: string; value: string; entry: AuditEntry } {
  const checked =
    plainAuditEntry(entry) ?? checkBeforeWrite('audit entry', entry, AuditEntrySchema);
  const key = auditKey(checked);
  return {
    key,
    value: encodeStored(key, { ...checked, runId: checked.runId ?? null }),
    entry: { ...checked, userId: checked.userId, runId: checked.runId },
  };
}

/** Which entries to read: one user's (required; `undefined` is the anonymous bucket). */
export interface AuditQuery {
  userId: string | undefined;
  sessionId?: string | undefined;
  kind?: AuditKind | readonly AuditKind[] | undefined;
  /** Entries at or after this time (epoch ms). */
  from?: number | undefined;
  /** Entries before this time (epoch ms). */
  to?: number | undefined;
  /** @default 100 */
  limit?: number | undefined;
  /** Opaque cursor from a previous page. */
  cursor?: string | undefined;
}

export interface AuditPage {
  entries: AuditEntry[];
  nextCursor: string | undefined;
}

export const AT_DIGITS = 16;
const DEFAULT_LIMIT = 100;
const QUERY_NAMES = new Set(['userId', 'sessionId', 'kind', 'from', 'to', 'limit', 'cursor']);

/** The position of an entry within its owner's log: `<at, 16 digits>!<id>` (the cursor form). */
export function auditPosition(at: number, id: string): string {
  return `${String(at).padStart(AT_DIGITS, '0')}!${encodeKeyPart(id, 'audit entry id')}`;
}

/** `a!<owner>!<at, 16 digits>!<id>`: an owner's entries in time order. */
export function auditKey(entry: { userId?: string | undefined; at: number; id: string }): string {
  return `a!${ownerPart(entry.userId)}!${auditPosition(entry.at, entry.id)}`;
}

/** Checks a query (`TypeError` naming the field) and fills in its defaults. */
export function checkAuditQuery(query: AuditQuery): Required<Pick<AuditQuery, 'limit'>> & {
  kinds: ReadonlySet<AuditKind> | undefined;
} {
  if (typeof query !== 'object' || query === null || !('userId' in query)) {
    throw new TypeError('audit query: userId is required (undefined for the anonymous bucket)');
  }
  for (const name of Object.keys(query)) {
    if (!QUERY_NAMES.has(name)) throw new TypeError(`audit query: unknown option "${name}"`);
  }
  const { userId, sessionId, kind, from, to, limit = DEFAULT_LIMIT, cursor } = query;
  if (userId !== undefined && (typeof userId !== 'string' || userId === '')) {
    throw new TypeError('audit query: userId must be a non-empty string or undefined');
  }
  if (sessionId !== undefined && (typeof sessionId !== 'string' || sessionId === '')) {
    throw new TypeError('audit query: sessionId must be a non-empty string');
  }
  for (const [name, value] of [
    ['from', from],
    ['to', to],
  ] as const) {
    if (value !== undefined && (!Number.isSafeInteger(value) || value < 0)) {
      throw new TypeError(`audit query: ${name} must be epoch milliseconds, got ${String(value)}`);
    }
  }
  if (!Number.isSafeInteger(limit) || limit < 1) {
    throw new TypeError(`audit query: limit must be a positive integer, got ${String(limit)}`);
  }
  if (cursor !== undefined && (typeof cursor !== 'string' || !/^\d{16}!.+$/.test(cursor))) {
    throw new TypeError('audit query: cursor must be the nextCursor of a previous page');
  }
  const list = kind === undefined ? undefined : typeof kind === 'string' ? [kind] : kind;
  for (const k of list ?? []) {
    if (!(AUDIT_KINDS as readonly string[]).includes(k)) {
      throw new TypeError(`audit query: unknown kind "${String(k)}" (${AUDIT_KINDS.join(', ')})`);
    }
  }
  return { limit, kinds: list && new Set(list) };
}

/** A stored entry, its seal, shape and key checked (`InvalidSessionRecordError` naming the key). */
export function decodeAuditAt(key: string, text: string, userId: string | undefined): AuditEntry {
  const value = decodeStored(key, text, StoredAuditSchema);
  const entry: AuditEntry = { ...value, userId: value.userId, runId: value.runId ?? undefined };
  if (entry.runId === undefined) delete entry.runId;
  if (entry.userId !== userId || auditKey(entry) !== key) {
    throw new InvalidSessionRecordError(key, 'entry does not belong to its key');
  }
  return entry;
}

/** Whether an entry matches the query's filters other than owner, time and cursor. */
export function auditMatches(
  entry: AuditEntry,
  query: AuditQuery,
  kinds: ReadonlySet<AuditKind> | undefined,
): boolean {
  return (
    (query.sessionId === undefined || entry.sessionId === query.sessionId) &&
    (kinds === undefined || kinds.has(entry.kind))
  );
}

/**
 * Every entry a query selects, page after page, as JSON lines (one entry per line, each
 * ending with `\n`).
 */
export async function* auditJsonLines(
  read: (query: AuditQuery) => Promise<AuditPage>,
  query: AuditQuery,
): AsyncGenerator<string> {
  let cursor = query.cursor;
  do {
    const page = await read({ ...query, cursor });
    for (const entry of page.entries) yield `${JSON.stringify(entry)}\n`;
    cursor = page.nextCursor;
  } while (cursor !== undefined);
}
