import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { bills } from '../../examples/agents/bills.js';
import { support } from '../../examples/agents/support.js';
import { EffectLedger } from '../../src/crash-exploration/effect-ledger.js';
import { exploreCrashes, replayCrash } from '../../src/crash-exploration/explore-crashes.js';
import { formatCrashFailures, type CrashReport } from '../../src/crash-exploration/crash-report.js';
import { ScenarioFailedError } from '../../src/errors/scenario-failed-error.js';
import { InvalidReplayError } from '../../src/errors/replay-errors.js';
import { FakeClock } from '../../src/testing/fake-clock.js';
import { Agent } from '../../src/agent/agent.js';
import { ScriptedModel } from '../../src/models/scripted-model.js';
import { tool } from '../../src/tools/tool.js';
import { CHARGE_SCENARIO, chargeAgent } from '../helpers/crash-fixtures.js';

let replayDir: string;
beforeAll(async () => {
  replayDir = await mkdtemp(join(tmpdir(), 'crash-replays-'));
});
afterAll(() => rm(replayDir, { recursive: true, force: true }));

/** Every write of the reference run has its three points in the report. */
function expectEveryWriteExplored(report: CrashReport): void {
  expect(report.boundaries.length).toBeGreaterThan(0);
  for (const b of report.boundaries) {
    const sides = report.results.filter((r) => r.point.write === b.index).map((r) => r.point.side);
    expect(sides, b.label).toEqual(['before', 'during', 'after']);
  }
  expect(report.points).toBe(report.boundaries.length * 3);
}

describe('exploreCrashes on the examples', () => {
  it('the approval example: a point before, during and after each write of its run, all pass', async () => {
    const report = await exploreCrashes(
      bills,
      {
        name: 'bills',
        steps: [
          { send: 'Please pay my electricity bill: $120 to ACME Power.' },
          { approve: 'pay_bill' },
        ],
      },
      { replayDir },
    );
    expectEveryWriteExplored(report);
    expect(formatCrashFailures(report)).toBe('');
    expect(report.passed).toBe(report.points);
    const labels = report.boundaries.map((b) => b.label);
    // The journaled writes of the run are all among the boundaries.
    expect(labels).toContain('save: model step 0 (asks pay_bill)');
    expect(labels).toContain('save: tool pay_bill finished (call_1_0)');
    expect(labels.some((l) => l.startsWith('save: model step') && l.endsWith('(answers)'))).toBe(
      true,
    );
    // A crash right before the tool's result was stored found the call in doubt: the tool is
    // not idempotent, so the run told the model its outcome is unknown (documented, passed).
    const cut = report.results.find(
      (r) => r.label === 'save: tool pay_bill finished (call_1_0)' && r.point.side === 'before',
    );
    expect(cut?.inDoubt).toEqual({ 'pay_bill call_1_0': 'failed' });
  });

  it('the sub-agent example: approvals deep in a sub-agent, every point passes', async () => {
    const report = await exploreCrashes(
      support,
      {
        name: 'support',
        steps: [
          { send: 'Order A-77 arrived broken: refund it, and where is it?' },
          { approve: 'refund' },
        ],
      },
      { replayDir },
    );
    expectEveryWriteExplored(report);
    expect(formatCrashFailures(report)).toBe('');
    const labels = report.boundaries.map((b) => b.label);
    expect(labels).toContain('save: tool refund finished (call_1_0)');
    expect(labels).toContain('save: tool ask_billing finished (call_1_0)');
  });

  it('a handoff: the run handed to billing, whose refund is approved; every point passes', async () => {
    const effects = new EffectLedger();
    const refund = tool({
      name: 'refund',
      description: 'Refunds an order',
      parameters: z.object({ order: z.string() }),
      needsApproval: true,
      execute: ({ order }, { callId }) => {
        effects.record(callId, 'refund', { order });
        return `order ${order} refunded`;
      },
    });
    const billing = new Agent({
      name: 'billing',
      model: new ScriptedModel((request) => {
        const last = request.items.at(-1);
        const result = last?.type === 'tool_result' ? last.output : '';
        return result.startsWith('Transferred')
          ? { toolCalls: [{ name: 'refund', arguments: { order: '12' } }] }
          : { text: `billing: ${result}` };
      }),
      tools: [refund],
    });
    const front = new Agent({
      name: 'front',
      model: new ScriptedModel(() => ({
        toolCalls: [{ name: 'transfer_to_billing', arguments: {} }],
      })),
      handoffs: [billing],
    });
    const report = await exploreCrashes(
      front,
      { name: 'handoff', steps: [{ send: 'Refund order 12' }, { approve: 'refund' }] },
      { effects, replayDir },
    );
    expectEveryWriteExplored(report);
    expect(formatCrashFailures(report)).toBe('');
    expect(report.boundaries.map((b) => b.label)).toContain(
      'save: model step 0 (asks transfer_to_billing)',
    );
    expect(effects.entries()).toMatchObject([{ effect: 'refund', detail: { order: '12' } }]);
  });

  it('a rejected call: no point runs it', async () => {
    const effects = new EffectLedger();
    const report = await exploreCrashes(
      chargeAgent(effects),
      { name: 'reject', steps: [{ send: 'Charge me.' }, { reject: 'charge', message: 'No.' }] },
      { effects, replayDir },
    );
    expect(formatCrashFailures(report)).toBe('');
    expect(effects.entries()).toEqual([]);
  });
});

describe('what exploreCrashes catches', () => {
  it('a tool marked idempotent that is not: a failing point, and its replay file fails alone', async () => {
    const effects = new EffectLedger();
    const liar = chargeAgent(effects, { idempotent: true });
    const report = await exploreCrashes(liar, CHARGE_SCENARIO, { effects, replayDir });
    expect(report.failed).toBeGreaterThan(0);
    const failure = report.failures[0]!;
    expect(failure.label).toBe('save: tool charge finished (call_1_0)');
    expect(failure.violations.map((v) => v.kind)).toEqual(['effect-twice']);
    expect(failure.inDoubt).toEqual({ 'charge call_1_0': 'retried' });
    const file = failure.replayFile!;
    expect(JSON.parse(await readFile(file, 'utf8'))).toMatchObject({
      format: 'agentstate-crash-replay',
      point: failure.point,
      scenario: CHARGE_SCENARIO,
    });
    // On its own, with a fresh agent and ledger: the same failure.
    const again = new EffectLedger();
    const replayed = await replayCrash(chargeAgent(again, { idempotent: true }), file, {
      effects: again,
    });
    expect(replayed.passed).toBe(false);
    expect(replayed.violations).toEqual(failure.violations);
  });

  it('the same tool keyed by its call id (idempotent in fact) passes every point', async () => {
    const effects = new EffectLedger();
    const honest = chargeAgent(effects, { idempotent: true, keyed: true });
    const report = await exploreCrashes(honest, CHARGE_SCENARIO, { effects, replayDir });
    expect(formatCrashFailures(report)).toBe('');
    expect(report.points).toBeGreaterThan(20);
  });

  it('a runtime fault (the save before a tool call not awaited) is found; without it, nothing', async () => {
    const effects = new EffectLedger();
    const agent = chargeAgent(effects);
    const faulty = await exploreCrashes(agent, CHARGE_SCENARIO, {
      effects,
      replayDir,
      faults: { skipDurable: ['tool'] },
    });
    expect(faulty.failed).toBeGreaterThan(0);
    const kinds = faulty.failures.flatMap((f) => f.violations.map((v) => v.kind));
    expect(kinds).toContain('ran-twice');
    expect(faulty.failures[0]!.point.side).toBe('during');
    const clean = await exploreCrashes(agent, CHARGE_SCENARIO, { effects, replayDir });
    expect(formatCrashFailures(clean)).toBe('');
  });

  it("durability 'run': a crash runs tools again; reported for a tool not idempotent, not for one that is in fact", async () => {
    const effects = new EffectLedger();
    const loose = await exploreCrashes(
      chargeAgent(effects, { durability: 'run' }),
      CHARGE_SCENARIO,
      {
        effects,
        replayDir,
      },
    );
    expect(loose.failures.flatMap((f) => f.violations.map((v) => v.kind))).toContain('ran-twice');
    const keyed = chargeAgent(effects, { durability: 'run', idempotent: true, keyed: true });
    const report = await exploreCrashes(keyed, CHARGE_SCENARIO, { effects, replayDir });
    expect(formatCrashFailures(report)).toBe('');
  });

  it('a tool that asks an operator: its call in doubt is answered as told, and the points pass', async () => {
    const effects = new EffectLedger();
    const agent = chargeAgent(effects, { onInterrupted: 'ask' });
    for (const inDoubt of ['fail', 'retry'] as const) {
      const report = await exploreCrashes(agent, CHARGE_SCENARIO, { effects, replayDir, inDoubt });
      const asked = report.results.filter((r) => Object.keys(r.inDoubt).length > 0);
      expect(asked.length).toBeGreaterThan(0);
      for (const r of asked) expect(r.inDoubt).toEqual({ 'charge call_1_0': `asked, ${inDoubt}` });
      // `retry` runs a non-idempotent effect again: an operator's choice the report shows.
      if (inDoubt === 'fail') expect(formatCrashFailures(report)).toBe('');
      else
        expect(report.failures.flatMap((f) => f.violations.map((v) => v.kind))).toContain(
          'effect-twice',
        );
    }
  });
});

describe('exploreCrashes with a clock and on LevelDB', () => {
  it('each run starts at the clock time of the call; advance steps move it', async () => {
    const clock = new FakeClock(Date.UTC(2026, 5, 1, 9));
    const effects = new EffectLedger();
    const agent = chargeAgent(effects, { clock });
    const report = await exploreCrashes(
      agent,
      {
        name: 'tomorrow',
        steps: [{ send: 'Charge me.' }, { advance: 86_400_000 }, { approve: 'charge' }],
      },
      { effects, clock, replayDir, sides: ['after'] },
    );
    expect(formatCrashFailures(report)).toBe('');
    expect(effects.entries().map((e) => e.detail)).toEqual([
      { amount: 5, at: Date.UTC(2026, 5, 2, 9) },
    ]);
  });

  it('on LevelDB, closed and opened again by each simulated process', async () => {
    const report = await exploreCrashes(
      bills,
      {
        name: 'bills-level',
        steps: [{ send: 'Pay $120 to ACME Power.' }, { approve: 'pay_bill' }],
      },
      { stores: 'level', replayDir, sides: ['before', 'after'] },
    );
    expect(report.points).toBe(report.boundaries.length * 2);
    expect(formatCrashFailures(report)).toBe('');
  });
});

describe('bad input', () => {
  const effects = new EffectLedger();
  const agent = chargeAgent(effects);

  it.each([
    [{ name: '', steps: [{ send: 'x' }] }, /scenario.name/],
    [{ name: 'x', steps: [] }, /scenario.steps must be a non-empty array/],
    [{ name: 'x', steps: [{ send: 'x', approve: 'y' }] }, /exactly one of/],
    [{ name: 'x', steps: [{ approve: 'y', message: 'z' }] }, /steps\[0\]\.message is not a field/],
    [{ name: 'x', steps: [{ advance: -1 }] }, /advance must be a number/],
    [{ name: 'x', userId: 'a\nb', steps: [{ send: 'x' }] }, /scenario.userId/],
  ])('a bad scenario is a TypeError naming the field (%#)', async (scenario, message) => {
    await expect(exploreCrashes(agent, scenario as never)).rejects.toThrow(message);
  });

  it.each([
    [{ sides: ['sideways'] }, /options.sides/],
    [{ writes: [-1] }, /options.writes/],
    [{ inDoubt: 'ask' }, /options.inDoubt/],
    [{ clock: { now: () => 0 } }, /options.clock must be a FakeClock/],
    [{ effects: {} }, /options.effects must be an EffectLedger/],
    [{ store: 'memory' }, /unknown option "store"/],
  ])('a bad option is a TypeError naming it (%#)', async (options, message) => {
    await expect(exploreCrashes(agent, CHARGE_SCENARIO, options as never)).rejects.toThrow(message);
  });

  it('a scenario that does not fit the agent fails before any crash', async () => {
    const error = await exploreCrashes(agent, {
      name: 'nothing-waits',
      steps: [{ approve: 'charge' }],
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ScenarioFailedError);
    expect((error as ScenarioFailedError).code).toBe('SCENARIO_FAILED');
    expect((error as Error).message).toMatch(/no call of "charge" waits/);
  });

  it('a malformed replay file is an InvalidReplayError naming what is wrong', async () => {
    const file = join(replayDir, 'bad.crash.json');
    await writeFile(file, '{ not json');
    await expect(replayCrash(agent, file)).rejects.toBeInstanceOf(InvalidReplayError);
    await writeFile(
      file,
      JSON.stringify({
        format: 'agentstate-crash-replay',
        version: 1,
        scenario: CHARGE_SCENARIO,
        point: { write: 1, side: 'sideways' },
        options: { stores: 'memory', inDoubt: 'fail' },
      }),
    );
    await expect(replayCrash(agent, file)).rejects.toThrow(/point must be/);
  });
});
