import {
  SessionRuntime,
  continueRun,
  deleteSession,
  forkSession,
  resumeSession,
  sendMessage,
  suspendSession,
  writeMetadata,
  type ApprovalDecision,
  type SessionKey,
} from '../../src/index.js';
import type { KvOp } from '../../src/persistence/kv/backends/kv-backend.js';
import type { KvSessionStore } from '../../src/persistence/kv/kv-session-store.js';
import { FakeClock } from '../../src/testing.js';
import { callTools } from './approval-agent.js';
import { fuzzAgent } from './fuzz-fixture.js';
import { dumpBackend } from './session-fixtures.js';

/**
 * The read and write actions of the store fuzz test. Each runs on a runtime and agent made
 * for it alone (no cache survives between actions), at the same fake time.
 */

export interface FuzzTarget {
  key: SessionKey;
  /** The lifecycle state the base store holds the session in. */
  state: string;
  /** Approvals of the calls the base session waits on (empty if it waits on none). */
  decisions: ApprovalDecision[];
}

export interface FuzzAction {
  name: string;
  writes: boolean;
  /** Reads only what the target's owner has in common (the same for each of their sessions). */
  ownerLevel?: boolean;
  run(runtime: SessionRuntime, target: FuzzTarget): Promise<unknown>;
}

export const FUZZ_ACTIONS: readonly FuzzAction[] = [
  { name: 'getSession', writes: false, run: (rt, t) => rt.getSession(t.key) },
  { name: 'getSessionInfo', writes: false, run: (rt, t) => rt.getSessionInfo(t.key) },
  {
    name: 'listSessions',
    writes: false,
    ownerLevel: true,
    run: (rt, t) => rt.listSessions({ userId: t.key.userId }),
  },
  { name: 'readHistory', writes: false, run: (rt, t) => rt.store.readHistory(t.key) },
  {
    name: 'auditLog',
    writes: false,
    ownerLevel: true,
    run: (rt, t) => rt.auditLog({ userId: t.key.userId, limit: 1000 }),
  },
  {
    name: 'userUsage',
    writes: false,
    ownerLevel: true,
    run: (rt, t) => rt.store.userUsage(t.key.userId),
  },
  {
    name: 'sendMessage',
    writes: true,
    run: (rt, t) =>
      rt.execute(t.key, sendMessage(callTools({ name: 'lookup', arguments: { word: 'fuzz' } }))),
  },
  {
    name: 'continueRun',
    writes: true,
    run: (rt, t) => rt.execute(t.key, continueRun({ decisions: t.decisions })),
  },
  { name: 'suspendSession', writes: true, run: (rt, t) => rt.execute(t.key, suspendSession()) },
  { name: 'resumeSession', writes: true, run: (rt, t) => rt.execute(t.key, resumeSession()) },
  {
    name: 'writeMetadata',
    writes: true,
    run: (rt, t) => rt.execute(t.key, writeMetadata({ fuzzed: true })),
  },
  {
    name: 'forkSession',
    writes: true,
    run: (rt, t) => rt.execute(t.key, forkSession('fuzz-fork')),
  },
  { name: 'deleteSession', writes: true, run: (rt, t) => rt.execute(t.key, deleteSession()) },
];

/** Thrown for an action that did not settle: a hang is a failure, not a typed error. */
export class ActionHangError extends Error {
  override readonly name = 'ActionHangError';
}

/**
 * Real time an action may take before it counts as hung (actions take milliseconds; a loaded
 * shared CI machine has paused a process for over half a second at a time).
 */
const HANG_MS = 20_000;

/** `promise`, or an `ActionHangError` once it has not settled for {@link HANG_MS}. */
async function watchdog<T>(promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new ActionHangError(`no outcome after ${HANG_MS} ms`)),
      HANG_MS,
    );
  });
  try {
    return await Promise.race([promise, hung]);
  } finally {
    clearTimeout(timer);
  }
}

/** What one action did: its result or error, and the raw store afterwards. */
export interface ActionOutcome {
  ok: boolean;
  value: unknown;
  error: unknown;
  after: ReadonlyMap<string, string>;
}

/**
 * Runs actions on a store whose whole contents are set before each one. The runner knows what
 * the backend holds (what it wrote, plus what the last action wrote, read back), so it resets
 * the contents with one batch of just the keys that differ.
 */
export class FuzzActionRunner {
  private contents: ReadonlyMap<string, string> | undefined;

  constructor(
    private readonly store: KvSessionStore,
    private readonly now: number,
  ) {}

  /**
   * Makes the store hold exactly `entries`, runs `action` on a fresh runtime and agent at the
   * fake time, and reads the raw store back (only if the backend applied a write batch).
   */
  async run(
    entries: ReadonlyMap<string, string>,
    action: FuzzAction,
    target: FuzzTarget,
  ): Promise<ActionOutcome> {
    await this.reset(entries);
    const { store } = this;
    const batches = store.stats().batches;
    const clock = new FakeClock(this.now);
    const runtime = new SessionRuntime({ store, agent: fuzzAgent(store, clock), clock });
    let outcome: Omit<ActionOutcome, 'after'>;
    try {
      outcome = { ok: true, value: await watchdog(action.run(runtime, target)), error: undefined };
    } catch (error) {
      outcome = { ok: false, value: undefined, error };
    }
    if (store.stats().batches !== batches) this.contents = new Map(await dumpBackend(store));
    return { ...outcome, after: this.contents! };
  }

  /** Sets the store's contents to `entries` in one atomic batch. */
  async reset(entries: ReadonlyMap<string, string>): Promise<void> {
    const current = this.contents ?? new Map(await dumpBackend(this.store));
    const ops: KvOp[] = [];
    for (const key of current.keys()) if (!entries.has(key)) ops.push({ type: 'del', key });
    for (const [key, value] of entries) {
      if (current.get(key) !== value) ops.push({ type: 'put', key, value });
    }
    if (ops.length > 0) await this.store.backend.write(ops);
    this.contents = entries;
  }
}
