import { describe, expect, it } from 'vitest';
import { omitFields, restoreFields } from '../../../src/persistence/kv/field-delta.js';
import { decodeSubRun, encodeSubRun } from '../../../src/persistence/kv/sub-run-encoding.js';

/** The value as JSON has it (what a store round trip gives). */
const asJson = (v: unknown): unknown => JSON.parse(JSON.stringify(v));
const size = (v: unknown): number => JSON.stringify(v).length;

describe('field delta', () => {
  const base = { a: 1, b: { c: [1, 2] }, d: 'x', e: true };
  const cases: Record<string, unknown>[] = [
    { a: 1, b: { c: [1, 2] }, d: 'x', e: true },
    { a: 2, b: { c: [1, 2] }, d: 'x', e: true, f: null },
    { a: 1, d: 'x' }, // fields of the base that the value lacks
    { a: undefined, b: { c: [1, 2], z: undefined }, d: 'y', e: true }, // undefined is absent
    { '-': ['a'], a: 1 }, // has the marker key itself
    { '=': 1, a: 1, b: { c: [2, 1] } },
    {},
  ];
  for (const value of cases) {
    it(`gives back ${JSON.stringify(value)} (as JSON) through a JSON round trip`, () => {
      const stored = asJson(omitFields(value, base)) as Record<string, unknown>;
      expect(asJson(restoreFields(stored, base))).toEqual(asJson(value));
    });
  }

  it('leaves out the fields equal to the base and writes the same bytes again after a restore', () => {
    const value = { z: 0, a: 1, b: { c: [1, 2] }, d: 'y' };
    const stored = omitFields(value, base);
    expect(stored).toEqual({ z: 0, d: 'y', '-': ['e'] });
    expect(JSON.stringify(omitFields(restoreFields(stored, base), base))).toBe(
      JSON.stringify(stored),
    );
  });
});

describe('a sub-agent run stored without what its parent holds', () => {
  const spec = {
    name: 'billing',
    runId: 'R2',
    input: 'refund order 9',
    maxTurns: 4,
    startedAt: 1_700_000_000_000,
  };
  const parent = {
    runId: 'R1',
    sessionId: 's1',
    agentName: 'triage',
    modelSettings: { temperature: 0.1 },
    calls: [{ callId: 'c1', name: 'ask_billing', arguments: '{}', step: 1, subRun: spec }],
  };
  const context = {
    runId: 'R2',
    sessionId: 's1',
    agentName: 'billing',
    maxTurns: 4,
    historyStart: 0,
    inputCount: 1,
    startedAt: spec.startedAt,
    budget: { maxTokens: 120 }, // differs from the base: stored
    standingDecisions: { refund: 'approve' },
    agentPath: ['triage', 'billing'],
    input: 'refund order 9',
    modelSettings: { temperature: 0.1 },
    turn: 1,
    step: 2,
    usage: { inputTokens: 10, outputTokens: 5, cachedTokens: 0, costUsd: 0 },
    calls: [
      {
        callId: 'c9',
        name: 'refund',
        arguments: '{"order":"9"}',
        step: 1,
        done: false,
        subResult: { status: 'completed', output: 'ok' },
      },
    ],
    newDecisions: {},
    interruption: undefined,
  };
  const entry = {
    snapshot: {
      status: 'active',
      value: 'tools',
      historyValue: {},
      context,
      children: {
        'tool-1': {
          snapshot: {
            status: 'active',
            input: {
              runId: 'R2',
              step: 1,
              call: { callId: 'c9', name: 'refund', arguments: '{"order":"9"}' },
              path: ['triage', 'billing'],
              subResult: { status: 'completed', output: 'ok', failParent: undefined },
            },
          },
          src: 'toolCall',
          syncSnapshot: false,
        },
        'agent-3': { src: 'subRun', part: 'R3' },
      },
    },
    src: 'subRun',
    syncSnapshot: false,
  };

  it('round-trips through JSON to the same entry, in far fewer bytes', () => {
    const stored = asJson(encodeSubRun(entry, parent, 'R2'));
    expect(asJson(decodeSubRun(stored, parent, 'R2'))).toEqual(asJson(entry));
    expect(size(stored)).toBeLessThan(size(entry) / 2);
    expect(JSON.stringify(stored)).not.toMatch(/agentPath|sessionId|"input":"|temperature/);
  });

  it('stores everything when the parent has no call for the run (nothing to derive from)', () => {
    const orphan = { ...parent, calls: [] };
    const stored = asJson(encodeSubRun(entry, orphan, 'R2')) as { snapshot: { context: object } };
    expect(stored.snapshot.context).toMatchObject({
      runId: 'R2',
      agentPath: ['triage', 'billing'],
    });
    expect(asJson(decodeSubRun(stored, orphan, 'R2'))).toEqual(asJson(entry));
  });

  it('reads a part against the wrong parent as a different run (the store then refuses it)', () => {
    const stored = asJson(encodeSubRun(entry, parent, 'R2'));
    const decoded = decodeSubRun(stored, { ...parent, calls: [] }, 'R2') as {
      snapshot: { context: { runId?: string } };
    };
    expect(decoded.snapshot.context.runId).toBeUndefined();
    expect(decodeSubRun('not an object', parent, 'R2')).toBeUndefined();
  });
});
