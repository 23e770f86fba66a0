import { readFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { bills } from '../../examples/agents/bills.js';
import { support } from '../../examples/agents/support.js';
import { exploreCrashes, replayCrash } from '../../src/crash-exploration/explore-crashes.js';
import { formatCrashFailures } from '../../src/crash-exploration/crash-report.js';
import { bySize } from '../helpers/test-tier.js';
import { TempStores } from '../helpers/temp-store.js';
import {
  chargeScenario,
  effects,
  honestCharge,
  lyingCharge,
  stuckCharge,
} from '../helpers/charge-agents.js';

const temps = new TempStores();
afterEach(() => temps.cleanupAll());

const CHARGES = 'test/helpers/charge-agents.ts';

/**
 * Each point's first process is a real child (`node` through the tsx loader, from the sources),
 * killed with SIGKILL at its point; this process recovers. A child starts in about 2 s here, so
 * the quick tier crashes the writes around the approval and the tool (the long tier, in
 * vitest.long.config.ts: every write of the examples).
 */
describe('exploreCrashes in child processes', () => {
  it('the bills example: every point found passes, at least one per write of the reference run', async () => {
    const report = await exploreCrashes(
      bills,
      { name: 'bills', steps: [{ send: 'Pay my ACME bill' }, { approve: 'pay_bill' }] },
      {
        processes: { module: 'examples/agents/bills.ts', export: 'bills' },
        writes: bySize({ quick: [4, 7, 8], long: undefined }),
        replayDir: await temps.folder(),
      },
    );
    expect(report.boundaries.map((b) => b.label)).toContain(
      'save: tool pay_bill finished (call_1_0)',
    );
    expect(report.points).toBe(bySize({ quick: 3, long: report.boundaries.length }) * 3);
    expect(formatCrashFailures(report)).toBe('');
    expect(report.passed).toBe(report.points);
  }, 600_000);

  it('the sub-agent example: the refund approved deep in billing, its points pass', async () => {
    const report = await exploreCrashes(
      support,
      {
        name: 'support',
        steps: [{ send: 'Refund order A-77 and tell me where it is' }, { approve: 'refund' }],
      },
      {
        processes: { module: 'examples/agents/support.ts', export: 'support' },
        writes: bySize({ quick: [11], long: undefined }),
        replayDir: await temps.folder(),
      },
    );
    expect(report.boundaries[11]?.label).toBe('save: tool refund finished (call_1_0)');
    expect(report.points).toBe(bySize({ quick: 1, long: report.boundaries.length }) * 3);
    expect(formatCrashFailures(report)).toBe('');
  }, 600_000);

  it('a child that hangs before its crash point is killed at the timeout, and its point fails with an error', async () => {
    const report = await exploreCrashes(stuckCharge, chargeScenario, {
      effects,
      processes: { module: CHARGES, export: 'stuckCharge', timeoutMs: 3000 },
      writes: [8],
      sides: ['before'],
      replayDir: await temps.folder(),
    });
    expect(report.failed).toBe(1);
    expect(report.failures[0]!.violations).toContainEqual({
      kind: 'error',
      message: 'the child process ran past 3000 ms without reaching its crash point; killed',
    });
  }, 600_000);

  it('a tool marked idempotent that is not is caught, and its replay file reproduces it in a child', async () => {
    const options = {
      effects,
      processes: { module: CHARGES, export: 'lyingCharge' },
      writes: [8],
      replayDir: await temps.folder(),
    };
    const report = await exploreCrashes(lyingCharge, chargeScenario, options);
    expect(report.boundaries[8]?.label).toBe('save: tool charge finished (call_1_0)');
    const failed = report.failures.map((f) => f.point.side);
    expect(failed).toContain('before');
    const before = report.failures.find((f) => f.point.side === 'before')!;
    expect(before.violations.map((v) => v.kind)).toContain('effect-twice');
    const file = before.replayFile!;
    expect(JSON.parse(await readFile(file, 'utf8'))).toMatchObject({
      options: { stores: 'level' },
    });
    const again = await replayCrash(lyingCharge, file, {
      effects,
      processes: options.processes,
    });
    expect(again.violations.map((v) => v.kind)).toContain('effect-twice');

    const honest = await exploreCrashes(honestCharge, chargeScenario, {
      ...options,
      processes: { module: CHARGES, export: 'honestCharge' },
    });
    expect(formatCrashFailures(honest)).toBe('');
  }, 600_000);

  it('checks the option: a TypeError names what is wrong', async () => {
    const explore = (processes: unknown, more: object = {}) =>
      exploreCrashes(lyingCharge, chargeScenario, { processes, ...more } as never);
    await expect(explore({ module: 'no/such/agent.ts' })).rejects.toThrow(
      /options\.processes\.module: no file at/,
    );
    await expect(explore({ module: CHARGES, timeout: 5 })).rejects.toThrow(
      /unknown option "processes\.timeout"/,
    );
    await expect(explore({ module: CHARGES, export: '' })).rejects.toThrow(
      /options\.processes\.export must be an export's name/,
    );
    await expect(explore({ module: CHARGES }, { stores: 'memory' })).rejects.toThrow(
      /options\.stores must be 'level'/,
    );
    await expect(explore('agent.ts')).rejects.toBeInstanceOf(TypeError);
    // The module is read before any point runs: the exports the children need are there.
    await expect(explore({ module: CHARGES, export: 'nope' })).rejects.toThrow(
      /charge-agents\.ts has no export nope that is an Agent/,
    );
    await expect(
      exploreCrashes(bills, chargeScenario, {
        effects,
        processes: { module: 'examples/agents/bills.ts', export: 'bills' },
      }),
    ).rejects.toThrow(/bills\.ts has no export effects that is an EffectLedger/);
  });
});
