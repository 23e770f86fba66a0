import { sessionPart } from './session-keys.js';
import type { SessionKey, SessionStore } from './session-store.js';

/** How a cancel reached the process executing the run. */
export type CancelDelivery = 'process' | 'notification' | 'poll';

/** A request to cancel a run executing now: who asked, and how it arrived. */
export interface CancelRequest {
  by?: string | undefined;
  delivery: CancelDelivery;
}

/** The one decision of a decision-inbox submission that asks to cancel the run. */
const CANCEL = 'agentstate.cancel';

/** The decisions of an inbox submission that asks to cancel the session's run. */
export function cancelDecisions(by: string | undefined): unknown[] {
  return [{ type: CANCEL, ...(by === undefined ? {} : { by }) }];
}

/** The cancel request an inbox submission holds, if it holds one (else it holds decisions). */
export function cancelOf(decisions: unknown[]): { by?: string | undefined } | undefined {
  const [first] = decisions;
  if (decisions.length !== 1 || typeof first !== 'object' || first === null) return undefined;
  const { type, by } = first as { type?: unknown; by?: unknown };
  if (type !== CANCEL) return undefined;
  return typeof by === 'string' ? { by } : {};
}

/** The abort reason a run's signal carries when `agent.cancel` stopped it (plain JSON). */
export function cancelReason(request: CancelRequest): object {
  return { name: 'RunCancelRequest', message: 'agent.cancel() stopped the run', ...request };
}

/** The cancel request an abort reason carries, if `cancelReason` built it. */
export function cancelRequestOf(reason: unknown): CancelRequest | undefined {
  if (typeof reason !== 'object' || reason === null) return undefined;
  const r = reason as { name?: unknown; by?: unknown; delivery?: unknown };
  if (r.name !== 'RunCancelRequest') return undefined;
  return {
    by: typeof r.by === 'string' ? r.by : undefined,
    delivery: r.delivery as CancelDelivery,
  };
}

/** A run executing in this process: how to cancel it and when it is over. */
export interface LiveRun {
  cancel(request: CancelRequest): void;
  readonly done: Promise<unknown>;
}

/**
 * The runs executing in this process on one store object, by session: every runtime on the
 * store (of any agent) adds its runs, so `agent.cancel` from any of them reaches the one that
 * executes the run. Stores carry one (`runCancels`); a store without one gets one per runtime.
 * A session may have more than one action that runs under way here (another runtime's, such as
 * a scheduler's, before the lease refuses it): each is kept until it ends, none displaces
 * another, and a cancel stops them all.
 */
export class LiveRunCancels {
  private readonly runs = new Map<string, Set<LiveRun>>();

  /** Adds the session's run while it executes; the returned function removes it. */
  add(key: SessionKey, run: LiveRun): () => void {
    const id = sessionPart(key);
    const runs = this.runs.get(id) ?? new Set<LiveRun>();
    runs.add(run);
    this.runs.set(id, runs);
    return () => {
      runs.delete(run);
      if (runs.size === 0 && this.runs.get(id) === runs) this.runs.delete(id);
    };
  }

  /** Whether a run of the session executes here. */
  has(key: SessionKey): boolean {
    return this.runs.has(sessionPart(key));
  }

  /** Cancels the session's runs executing here and resolves when they are over; else undefined. */
  cancel(key: SessionKey, request: CancelRequest): Promise<void> | undefined {
    const runs = this.runs.get(sessionPart(key));
    if (!runs) return undefined;
    const done = [...runs].map((run) => {
      run.cancel(request);
      return run.done.then(noop, noop);
    });
    return Promise.all(done).then(noop);
  }

  /** How many sessions have a run executing here. */
  get size(): number {
    return this.runs.size;
  }
}

const noop = (): void => undefined;

/** The store's in-process run registry, if it carries one. */
export function runCancelsOf(store: SessionStore): LiveRunCancels | undefined {
  const cancels = (store as { runCancels?: unknown }).runCancels;
  return cancels instanceof LiveRunCancels ? cancels : undefined;
}
