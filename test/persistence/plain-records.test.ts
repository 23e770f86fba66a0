import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import {
  CURRENT_SCHEMA_VERSION,
  SessionEnvelopeSchema,
  SessionRecordCodec,
  StoredSessionSchema,
  envelopeJson,
} from '../../src/persistence/session-record-codec.js';
import {
  JournalEntrySchema,
  SessionInfoSchema,
  UsageTotalsSchema,
  toSessionInfo,
} from '../../src/persistence/session-schemas.js';
import type { SessionRecord } from '../../src/persistence/session-store.js';
import { AuditEntrySchema } from '../../src/persistence/audit-log.js';
import {
  plainAuditEntry,
  plainJournalEntry,
  plainSessionEnvelope,
  plainSessionInfo,
  plainStoredSession,
  plainUsageTotals,
} from '../../src/persistence/plain-records.js';

const ODD_VALUES: unknown[] = [
  undefined,
  null,
  0,
  -0,
  1,
  -1,
  1.5,
  2 ** 53,
  Number.MAX_SAFE_INTEGER,
  NaN,
  Infinity,
  -Infinity,
  true,
  false,
  '',
  'x',
  'active',
  'tool',
  [],
  {},
  ['x'],
  [1],
  { turns: 0, inputTokens: 0, outputTokens: 0, costUsd: 0 },
];

const USAGE = { turns: 2, inputTokens: 10, outputTokens: 3, costUsd: 0.001 };
const INFO = {
  sessionId: 's1',
  userId: 'u1',
  version: 3,
  status: 'active',
  createdAt: 1_700_000_000_000,
  updatedAt: 1_700_000_000_500,
  parentId: 'p1',
  historyLength: 8,
  usage: USAGE,
  approvalDeadline: 1_700_000_900_000,
};
const { userId: _u, parentId: _p, approvalDeadline: _a, ...INFO_MINIMAL } = INFO;
const RECORD = { ...INFO, snapshot: { status: 'active', value: 'x', context: {} } };
const ENTRY = {
  runId: 'r1',
  step: 0,
  kind: 'tool',
  output: { result: { output: '3' } },
  at: 5,
  startedAt: 4,
  restarts: 1,
};
const { startedAt: _s, restarts: _r, output: _o, ...ENTRY_MINIMAL } = ENTRY;

/** Each value changed one field at a time (removed, set to odd values), nested ones too. */
function variants(value: Record<string, unknown>, extraFields: string[] = []): unknown[] {
  const out: unknown[] = [value, { ...value, extra: 1 }, { extra: 1, ...value }];
  out.push(Object.values(value), null, undefined, 'x', [value]);
  for (const field of [...Object.keys(value), ...extraFields]) {
    const without = { ...value };
    delete without[field];
    out.push(without);
    for (const odd of ODD_VALUES) out.push({ ...value, [field]: odd });
    const nested = value[field];
    if (typeof nested === 'object' && nested !== null && !Array.isArray(nested)) {
      for (const inner of variants(nested as Record<string, unknown>)) {
        out.push({ ...value, [field]: inner });
      }
    }
  }
  return out;
}

/** The fast check accepts exactly what the schema accepts, with the very same output. */
function expectSameAsSchema(
  fast: (value: unknown) => unknown,
  schema: z.ZodType,
  value: unknown,
): boolean {
  const checked = fast(value);
  const parsed = schema.safeParse(value);
  const label = JSON.stringify(value) ?? String(value);
  expect(checked !== undefined, label).toBe(parsed.success);
  if (parsed.success) {
    expect(checked, label).toStrictEqual(parsed.data);
    expect(Object.keys(checked as object), label).toEqual(Object.keys(parsed.data as object));
  }
  return parsed.success;
}

/** Runs every variant of every base through both; returns how many each accepted. */
function compare(
  fast: (value: unknown) => unknown,
  schema: z.ZodType,
  bases: Record<string, unknown>[],
  extraFields: string[],
): { valid: number; invalid: number } {
  let valid = 0;
  let invalid = 0;
  for (const base of bases) {
    for (const value of variants(base, extraFields)) {
      if (expectSameAsSchema(fast, schema, value)) valid++;
      else invalid++;
      // As read back from storage, too (JSON drops undefined and turns NaN into null).
      const text = JSON.stringify(value);
      if (text !== undefined) expectSameAsSchema(fast, schema, JSON.parse(text));
    }
  }
  return { valid, invalid };
}

const INFO_OPTIONALS = ['userId', 'parentId', 'approvalDeadline'];

describe('plain record checks (fast paths of the stored-record schemas)', () => {
  it('usage totals: same accept/reject and output as UsageTotalsSchema', () => {
    const counts = compare(plainUsageTotals, UsageTotalsSchema, [USAGE], []);
    expect(counts.valid).toBeGreaterThan(10);
    expect(counts.invalid).toBeGreaterThan(50);
  });

  it('session info: same accept/reject and output as SessionInfoSchema', () => {
    const counts = compare(
      plainSessionInfo,
      SessionInfoSchema,
      [INFO, INFO_MINIMAL],
      INFO_OPTIONALS,
    );
    expect(counts.valid).toBeGreaterThan(50);
    expect(counts.invalid).toBeGreaterThan(500);
  });

  it('stored record: same as StoredSessionSchema, the snapshot passed through as is', () => {
    const bases = [RECORD, { ...INFO_MINIMAL, snapshot: null }, INFO_MINIMAL];
    const counts = compare(plainStoredSession, StoredSessionSchema, bases, [
      ...INFO_OPTIONALS,
      'snapshot',
    ]);
    expect(counts.valid).toBeGreaterThan(50);
    expect(counts.invalid).toBeGreaterThan(500);
    const snapshot = { any: ['thing'] };
    expect(plainStoredSession({ ...INFO, snapshot })?.snapshot).toBe(snapshot);
  });

  it('envelope: same as SessionEnvelopeSchema at the current schema version', () => {
    const fast = (value: unknown) => plainSessionEnvelope(value, CURRENT_SCHEMA_VERSION);
    const envelope = { schemaVersion: CURRENT_SCHEMA_VERSION, machineVersion: '3', record: RECORD };
    const bases = [envelope, { ...envelope, record: INFO_MINIMAL, machineVersion: '' }];
    const counts = compare(fast, SessionEnvelopeSchema, bases, []);
    expect(counts.valid).toBeGreaterThan(50);
    expect(counts.invalid).toBeGreaterThan(500);
    expect(fast({ ...envelope, schemaVersion: CURRENT_SCHEMA_VERSION - 1 })).toBeUndefined();
  });

  it('journal entry: same accept/reject and output as JournalEntrySchema', () => {
    const bases = [ENTRY, ENTRY_MINIMAL, { ...ENTRY_MINIMAL, output: undefined, kind: 'model' }];
    const counts = compare(plainJournalEntry, JournalEntrySchema, bases, [
      'startedAt',
      'restarts',
      'output',
    ]);
    expect(counts.valid).toBeGreaterThan(50);
    expect(counts.invalid).toBeGreaterThan(300);
  });

  it('audit entry: same accept/reject and output as AuditEntrySchema (arrays copied)', () => {
    const entry = {
      id: '01J',
      userId: 'u1',
      sessionId: 's1',
      runId: 'r1',
      at: 5,
      kind: 'approval',
      summary: 'approved add',
      action: 'decide',
      tool: 'add',
      callId: 'c1',
      agentPath: ['top', 'math'],
      permission: 'ask',
      by: 'ann',
      via: 'page',
    };
    const minimal = { id: '01J', sessionId: 's1', at: 0, kind: 'session', summary: '' };
    const optionals = Object.keys(entry).filter((key) => !(key in minimal));
    const bases = [entry, minimal, { ...minimal, agentPath: [] }];
    const counts = compare(plainAuditEntry, AuditEntrySchema, bases, optionals);
    expect(counts.valid).toBeGreaterThan(50);
    expect(counts.invalid).toBeGreaterThan(500);
    expect(plainAuditEntry(entry)?.agentPath).not.toBe(entry.agentPath);
  });

  it("a record's envelope JSON built from its listing entry's JSON is JSON.stringify's, to the byte", () => {
    const codec = new SessionRecordCodec();
    const snapshots: unknown[] = [
      RECORD.snapshot,
      null,
      undefined,
      'text "quoted" \u2028 é 🙂',
      [1, { a: undefined, b: [null, -0, 1e21] }],
      { children: { run: { snapshot: { context: { items: ['x'] } } } }, toJSON: undefined },
    ];
    const infos = [
      INFO,
      INFO_MINIMAL,
      ...INFO_OPTIONALS.map((field) => ({ ...INFO, [field]: undefined })),
      { ...INFO, extra: 'not stored', usage: { ...USAGE, extra: 1 } },
    ];
    let compared = 0;
    for (const info of infos) {
      for (const snapshot of snapshots) {
        for (const machineVersion of ['1', 'session-1/run-1', 'a "b" \\ c']) {
          const record = { ...info, snapshot, machineVersion } as unknown as SessionRecord;
          const envelope = codec.envelope(record);
          const listing = JSON.stringify(toSessionInfo(record));
          expect(envelopeJson(envelope, listing)).toBe(JSON.stringify(envelope));
          compared++;
        }
      }
    }
    expect(compared).toBe(infos.length * snapshots.length * 3);
  });
});
