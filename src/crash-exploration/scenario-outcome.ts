import type { Agent } from '../agent/agent.js';
import type { Item } from '../items/item.js';
import type { SessionKey, SessionStore } from '../persistence/session-store.js';

/** How a scenario left its session: what the exploration compares with the reference run's. */
export interface ScenarioOutcome {
  /** The session machine's state (`active.idle`). */
  state: string;
  /** The current (else last) run: status, interruption, turns, usage, pending calls. */
  run: unknown;
  /** The last ended run's summary: output, turns, sub-runs. */
  lastRun: unknown;
  history: Item[];
}

/** Keys whose values differ between two runs of one scenario by nature (ids, times). */
const VOLATILE = new Set(['runId', 'startedAt', 'endedAt', 'at', 'firstAt', 'subRunId']);

/** A plain-JSON copy without the volatile keys, so that two runs of one scenario compare. */
function stable(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stable);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (!VOLATILE.has(k) && !k.endsWith('Ms') && v !== undefined) out[k] = stable(v);
  }
  return out;
}

/** Reads the scenario's session as it is stored at the end. */
export async function readOutcome(
  agent: Agent,
  store: SessionStore,
  key: SessionKey,
): Promise<ScenarioOutcome> {
  const view = await agent.runtimeFor(store).getSession(key);
  const history = await store.readHistory(key);
  const run = view.runStatus;
  return {
    state: view.state,
    run: stable(
      run && {
        status: run.status,
        interruption: run.interruption,
        turns: run.turns,
        usage: run.usage,
        pending: run.interruptions.map((i) => i.callId),
        error: run.error?.code,
      },
    ),
    lastRun: stable(view.lastRun),
    history,
  };
}

/** The first difference between two outcomes, as a path and both values; undefined if equal. */
export function outcomeDifference(
  reference: ScenarioOutcome,
  got: ScenarioOutcome,
): string | undefined {
  return firstDifference(reference, got, 'outcome');
}

function firstDifference(a: unknown, b: unknown, path: string): string | undefined {
  if (Object.is(a, b)) return undefined;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) {
    return `${path}: expected ${JSON.stringify(a)}, got ${JSON.stringify(b)}`;
  }
  if (Array.isArray(a) !== Array.isArray(b))
    return `${path}: expected ${JSON.stringify(a)}, got ${JSON.stringify(b)}`;
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  if (Array.isArray(a) && Array.isArray(b) && a.length !== b.length)
    return `${path}: expected ${a.length} entries, got ${b.length}`;
  for (const k of keys) {
    const d = firstDifference(
      (a as Record<string, unknown>)[k],
      (b as Record<string, unknown>)[k],
      `${path}.${k}`,
    );
    if (d) return d;
  }
  return undefined;
}
