import { describe, expect, it } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import { MemorySessionStore } from '../../src/persistence/kv/memory-session-store.js';
import { ScriptedModel } from '../../src/models/scripted-model.js';
import type { SessionStore } from '../../src/persistence/session-store.js';
import { simulateWriters } from '../../src/writer-simulation/simulate-writers.js';
import type { SimulateWritersOptions } from '../../src/writer-simulation/writers-options.js';
import type { WritersReport } from '../../src/writer-simulation/writers-report.js';
import { bySize } from '../helpers/test-tier.js';
import { findingsOf } from '../helpers/writers-findings.js';

/**
 * Issue 45, "many writers, simulated", on the memory store: one store object shared by the
 * workers (its leases live in it), which each treat as a store shared by processes. The quick
 * tier runs 50 seeds, the long tier 1,000 (`npm run test:long`).
 */
const SEEDS = bySize({ quick: 50, long: 1_000 });

/** A memory store shared by every worker of one seed, its lease clock worker 0's. */
function sharedMemory(options: { unsafeSkipFencing?: boolean } = {}) {
  let store: MemorySessionStore | undefined;
  return ({ clock }: { clock: { now(): number } }): SessionStore =>
    (store ??= new MemorySessionStore({ clock, ...options }));
}

describe('simulateWriters on the memory store', () => {
  it(`${SEEDS} seeds: no forked history, stale write, lost or doubled message, lost approval, call never answered`, async () => {
    const found: WritersReport[] = [];
    let saves = 0;
    for (let seed = 0; seed < SEEDS; seed++) {
      const report = await simulateWriters({ seed, open: sharedMemory() });
      expect(report).toMatchObject({ seed, operations: 30 });
      saves += report.saves;
      if (findingsOf(report) > 0) found.push(report);
    }
    expect(found).toEqual([]);
    // The seeds did work: about 35 saves a seed, races among them.
    expect(saves).toBeGreaterThan(SEEDS * 20);
  }, 600_000);

  it('with the fencing check skipped (a test-only store option), stale writes are found', async () => {
    const stale: number[] = [];
    for (let seed = 0; seed < 10; seed++) {
      const report = await simulateWriters({
        seed,
        open: sharedMemory({ unsafeSkipFencing: true }),
      });
      if (report.staleWrites.length > 0) stale.push(seed);
      for (const write of report.staleWrites) {
        expect(write.detail).toMatch(/written with lease token \d+ after token \d+ was granted/);
      }
    }
    // Seed 1 among others: a worker hung with a write in flight, another took the session over.
    expect(stale).toContain(1);
    expect(stale.length).toBeGreaterThan(2);
  }, 120_000);

  it('the same seed makes the same choices', async () => {
    const first = await simulateWriters({ seed: 11, open: sharedMemory() });
    const again = await simulateWriters({ seed: 11, open: sharedMemory() });
    expect(again).toEqual(first);
  });

  it("runs the caller's agent, and no faults at all when told so", async () => {
    const model = new ScriptedModel((request) => ({ text: `echo ${request.items.length}` }));
    const agent = new Agent({ name: 'echo', model });
    const report = await simulateWriters({
      seed: 3,
      agent,
      open: sharedMemory(),
      workers: 2,
      sessions: 1,
      operations: 10,
      faults: { slowWrites: 0, failedWrites: 0, lostLeases: 0, clockSkewMs: 0 },
    });
    expect(report).toMatchObject({
      seed: 3,
      operations: 10,
      forkedHistories: [],
      staleWrites: [],
      lostMessages: [],
      doubledMessages: [],
      lostApprovals: [],
      stuckCalls: [],
    });
    expect(model.callCount).toBeGreaterThan(0);
  });

  it('bad options are TypeErrors naming the option, before any store is opened', async () => {
    let opened = 0;
    const open = () => {
      opened += 1;
      return new MemorySessionStore();
    };
    const bad: [unknown, RegExp][] = [
      [undefined, /simulateWriters\(\): options must be an object/],
      [{ open }, /option "seed" must be a safe integer, got undefined/],
      [{ seed: 1.5, open }, /option "seed" must be a safe integer/],
      [{ seed: 1 }, /option "open" must be a function/],
      [{ seed: 1, open, workers: 1 }, /option "workers" must be an integer from 2 to 16/],
      [{ seed: 1, open, sessions: 0 }, /option "sessions" must be an integer from 1 to 100/],
      [{ seed: 1, open, operations: -1 }, /option "operations" must be an integer from 1 to 10000/],
      [{ seed: 1, open, agent: {} }, /option "agent" must implement Agent/],
      [{ seed: 1, open, faults: 3 }, /option "faults" must be an object/],
      [
        { seed: 1, open, faults: { slowWrites: 2 } },
        /option "faults.slowWrites" must be a probability/,
      ],
      [
        { seed: 1, open, faults: { lostLease: 0.1 } },
        /unknown option "faults.lostLease" \(did you mean "faults.lostLeases"\?\)/,
      ],
      [
        { seed: 1, open, faults: { clockSkewMs: 60_000 } },
        /option "faults.clockSkewMs" must be an integer from 0 to 3000/,
      ],
      [{ seed: 1, open, worker: 3 }, /unknown option "worker" \(did you mean "workers"\?\)/],
    ];
    for (const [options, message] of bad) {
      await expect(simulateWriters(options as SimulateWritersOptions)).rejects.toThrow(TypeError);
      await expect(simulateWriters(options as SimulateWritersOptions)).rejects.toThrow(message);
    }
    expect(opened).toBe(0);
    const noLeases = {
      seed: 1,
      open: () => ({ save: () => undefined }) as unknown as SessionStore,
    };
    await expect(simulateWriters(noLeases)).rejects.toThrow(
      /simulateWriters\(\): option "open" must return a SessionStore that keeps leases/,
    );
  });
});
