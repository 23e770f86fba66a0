import type { KvRange } from './key-range.js';
import type { SessionKey } from './session-store.js';
import { checkIdLength } from '../core/id-limit.js';

/**
 * Key layout of the session stores. Every part is URI-encoded with `!` escaped too, so `!`
 * only ever appears as the separator and all keys are ASCII (JavaScript string order equals
 * LevelDB byte order). The owner is a hard partition: `a` for the anonymous bucket and
 * `u:<userId>` for a named user, so no userId can collide with the anonymous bucket.
 *
 * | key                                   | value                                |
 * |---------------------------------------|--------------------------------------|
 * | `s!<owner>!<sid>`                     | record envelope (schema-versioned)   |
 * | `c!<owner>!<sid>`                     | the record's changes since `s!`      |
 * | `l!<owner>!<sid>`                     | SessionInfo JSON, for listing        |
 * | `h!<owner>!<sid>!<seq, 10 digits>`    | history item JSON                    |
 * | `j!<owner>!<sid>!<runId>!<step, 8 d>` | journal entry JSON                   |
 * | `m!<owner>!<sid>!<id>`                | a queued message (`MessageInbox`)    |
 * | `t!<owner>`                           | user usage totals JSON               |
 * | `d!<deadline, 16 d>!<owner>!<sid>`    | approval-deadline index entry JSON   |
 * | `x!<owner>!<order>!<position>`        | list-order entry (`entries/list-order`) |
 * | `x!<owner>!workflow-<order>!<position>` | a workflow instance's list-order entry |
 * | `x!<owner>!<kind>-ids!<sid>`          | the owner's ids of one kind (`session`, `workflow`) |
 * | `n!<owner>`                           | the owner's list-order entries are whole |
 * | `o!<owner>`                           | agentstate 0.1's owner marker (read) |
 *
 * Every value is sealed with a checksum of key and value (`sealed-value.ts`). The totals key
 * exists from an owner's first session on, so its absence next to sessions is damage.
 */
export const KEY_SEPARATOR = '!';

const HISTORY_DIGITS = 10;
const STEP_DIGITS = 8;
const DEADLINE_DIGITS = 16;
const DEADLINE_PREFIX = 'd!';
/** Characters `encodeURIComponent` keeps, without `!`: a part of only these encodes to itself. */
const UNRESERVED = /^[A-Za-z0-9\-_.~*'()]*$/;

/**
 * URI-encodes a key part and escapes `!`, so the separator cannot appear in it and two
 * different ids never share a key (NUL, `%`, `/` and non-ASCII are all percent-encoded).
 * Ids must be well-formed Unicode: a lone surrogate has no encoding (`TypeError`); an id
 * longer than `MAX_ID_LENGTH` is `IdTooLongError`.
 */
export function encodeKeyPart(part: string, what = 'id'): string {
  if (typeof part === 'string') checkIdLength(what, part);
  return escapeKeyPart(part, what);
}

/**
 * {@link encodeKeyPart} without the id length check: for a part whose length its own checks
 * bound (a memory's id, up to 400 characters).
 */
export function escapeKeyPart(part: string, what = 'id'): string {
  // A part that encodeURIComponent leaves as it is (and has no `!`) is its own encoding.
  if (typeof part === 'string' && UNRESERVED.test(part)) return part;
  if (!(part as unknown as { isWellFormed(): boolean }).isWellFormed()) {
    throw new TypeError(`${what} must be well-formed Unicode (it holds a lone surrogate)`);
  }
  return encodeURIComponent(part).replaceAll('!', '%21');
}

/** The owner part of every key of a user's data. */
export function ownerPart(userId: string | undefined): string {
  return userId === undefined ? 'a' : `u:${encodeKeyPart(userId, 'userId')}`;
}

/** The user id an owner part encodes (`a` or `u:<encoded id>`); `TypeError` for other text. */
export function userOfOwnerPart(owner: string): string | undefined {
  if (owner === 'a') return undefined;
  let userId: string | undefined;
  try {
    userId = owner.startsWith('u:') ? decodeURIComponent(owner.slice(2)) : undefined;
  } catch {
    userId = undefined;
  }
  if (userId === undefined || ownerPart(userId) !== owner) {
    throw new TypeError(`"${owner}" is not an owner part`);
  }
  return userId;
}

/**
 * A session key that carries its session part, encoded once (see {@link encodedKey}). The part
 * is a private field: copies, comparisons and logs see the key's two ids only.
 */
class EncodedKey implements SessionKey {
  readonly #part: string;

  constructor(
    readonly sessionId: string,
    readonly userId: string | undefined,
    part: string,
  ) {
    this.#part = part;
  }

  get part(): string {
    return this.#part;
  }
}

/**
 * The unambiguous text of a (user, session) pair: the part every key of the session shares.
 * Also what in-process caches key sessions by.
 */
export function sessionPart(key: SessionKey): string {
  if (key instanceof EncodedKey) return key.part;
  if (typeof key.sessionId !== 'string' || key.sessionId.length === 0) {
    throw new TypeError('sessionId must be a non-empty string');
  }
  return `${ownerPart(key.userId)}!${encodeKeyPart(key.sessionId, 'sessionId')}`;
}

/**
 * A copy of `key` that carries its session part, encoded once: every key of the session named
 * from it (a save names a dozen) takes the part as it is instead of encoding it again. Its ids
 * are read-only. `TypeError` as `sessionPart` for a key that cannot be encoded.
 */
export function encodedKey(key: SessionKey): SessionKey {
  return new EncodedKey(key.sessionId, key.userId, sessionPart(key));
}

function padded(value: number, digits: number, what: string): string {
  if (!Number.isSafeInteger(value) || value < 0 || value >= 10 ** digits) {
    throw new TypeError(`${what} must be an integer in [0, ${10 ** digits}), got ${value}`);
  }
  return String(value).padStart(digits, '0');
}

/** All keys starting with `prefix` (which must end with the separator). */
export function prefixRange(prefix: string): KvRange {
  const last = prefix.charCodeAt(prefix.length - 1);
  return { gte: prefix, lt: prefix.slice(0, -1) + String.fromCharCode(last + 1) };
}

/** The smallest key strictly after `key`. */
export function keyAfter(key: string): string {
  return `${key}\u0000`;
}

export function recordKey(key: SessionKey): string {
  return `s!${sessionPart(key)}`;
}

/**
 * The changes of a session's record since the envelope stored at its record key, when the
 * key-value store writes them instead of the whole record (`record-changes.ts`).
 */
export function recordChangesKey(key: SessionKey): string {
  return `c!${sessionPart(key)}`;
}

/** A sub-agent run's snapshot, stored apart from its session's record (`sub-run-parts.ts`). */
export function subRunKey(key: SessionKey, runId: string): string {
  return `r!${sessionPart(key)}!${encodeKeyPart(runId, 'runId')}`;
}

/** The stored sub-agent runs of one session. */
export function subRunRange(key: SessionKey): KvRange {
  return prefixRange(`r!${sessionPart(key)}!`);
}

/** The session records of one owner. */
export function recordRange(userId: string | undefined): KvRange {
  return prefixRange(`s!${ownerPart(userId)}!`);
}

export function listIndexKey(key: SessionKey): string {
  return `l!${sessionPart(key)}`;
}

/** The list index of one owner. */
export function listIndexRange(userId: string | undefined): KvRange {
  return prefixRange(`l!${ownerPart(userId)}!`);
}

export function historyKey(key: SessionKey, seq: number): string {
  return historyKeyOf(key)(seq);
}

/** {@link historyKey} of one session for many positions (its key part encoded once). */
export function historyKeyOf(key: SessionKey): (seq: number) => string {
  const prefix = `h!${sessionPart(key)}!`;
  return (seq) => `${prefix}${padded(seq, HISTORY_DIGITS, 'History position')}`;
}

/** History positions `[from, to)`, or `[from, end)` without `to`. */
export function historyRange(key: SessionKey, from = 0, to?: number): KvRange {
  const all = prefixRange(`h!${sessionPart(key)}!`);
  return {
    gte: historyKey(key, from),
    lt: to === undefined ? all.lt : historyKey(key, to),
  };
}

export function journalKey(key: SessionKey, runId: string, step: number): string {
  if (typeof runId !== 'string' || runId.length === 0) {
    throw new TypeError('runId must be a non-empty string');
  }
  return `j!${sessionPart(key)}!${encodeKeyPart(runId, 'runId')}!${padded(step, STEP_DIGITS, 'Step')}`;
}

/** The journal entries of one run, by step. */
export function runJournalRange(key: SessionKey, runId: string): KvRange {
  return prefixRange(journalKey(key, runId, 0).slice(0, -STEP_DIGITS));
}

/** The step of a journal key of `runJournalRange`. */
export function journalStepOf(entryKey: string): number {
  return Number(entryKey.slice(-STEP_DIGITS));
}

/** Every journal entry of a session, all runs. */
export function journalRange(key: SessionKey): KvRange {
  return prefixRange(`j!${sessionPart(key)}!`);
}

/** A queued message of a session (`id` a ULID that grows with each message queued). */
export function messageKey(key: SessionKey, id: string): string {
  return `m!${sessionPart(key)}!${encodeKeyPart(id, 'message id')}`;
}

/** The queued messages of one session, in the order they were queued. */
export function messageRange(key: SessionKey): KvRange {
  return prefixRange(`m!${sessionPart(key)}!`);
}

/** The queued messages of one owner's sessions, by session. */
export function messageOwnerRange(userId: string | undefined): KvRange {
  return prefixRange(`m!${ownerPart(userId)}!`);
}

export function userTotalsKey(userId: string | undefined): string {
  return `t!${ownerPart(userId)}`;
}

/** The owner marker agentstate 0.1 wrote; a store of that age may lack totals keys. */
export function legacyOwnerMarkerKey(userId: string | undefined): string {
  return `o!${ownerPart(userId)}`;
}

/** Totals keys of named owners only (not the anonymous bucket): one per owner with sessions. */
export function namedOwnersRanges(): KvRange[] {
  return [prefixRange('t!u:'), prefixRange('o!u:')];
}

/** The approval-deadline index entry of a session: ordered by deadline across all owners. */
export function deadlineKey(key: SessionKey, deadline: number): string {
  return `${DEADLINE_PREFIX}${padded(deadline, DEADLINE_DIGITS, 'Approval deadline')}!${sessionPart(key)}`;
}

/** Index entries with a deadline at or before `until` (all of them from `after` on). */
export function dueDeadlineRange(until: number, after?: string): KvRange {
  const all = prefixRange(DEADLINE_PREFIX);
  const end = Math.min(until + 1, Number.MAX_SAFE_INTEGER);
  return {
    gte: after === undefined ? all.gte : keyAfter(after),
    lt: `${DEADLINE_PREFIX}${padded(end, DEADLINE_DIGITS, 'Approval deadline')}`,
  };
}

/** Index entries with a deadline after `until`. */
export function laterDeadlineRange(until: number): KvRange {
  return { gte: dueDeadlineRange(until).lt, lt: prefixRange(DEADLINE_PREFIX).lt };
}

/** The deadline an index key is filed under (NaN for a key not of that form). */
export function deadlineOfKey(indexKey: string): number {
  const digits = indexKey.slice(DEADLINE_PREFIX.length, DEADLINE_PREFIX.length + DEADLINE_DIGITS);
  return /^\d{16}$/.test(digits) ? Number(digits) : Number.NaN;
}
