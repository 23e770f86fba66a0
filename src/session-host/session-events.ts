import type { InspectionEvent } from 'xstate';
import type { SessionKey, SessionRecord } from '../persistence/session-store.js';
import { combineInspectors, type InspectOption } from '../definition/inspection.js';

/** What SessionRuntime reports; subscribe with `runtime.on(type, listener)`. */
export interface SessionRuntimeEvents {
  SessionLoaded: { key: SessionKey; version: number };
  SessionActionExecuted: { key: SessionKey; action: string };
  SessionSaved: { key: SessionKey; version: number; record: SessionRecord };
  SessionLoadFailed: { key: SessionKey; error: unknown };
  SessionSaveFailed: { key: SessionKey; error: unknown };
  /**
   * Each XState inspection event of a session's actors (session, run, steps, sub-agent runs),
   * with the session it belongs to. Listening costs nothing while nobody listens: the actors
   * of an action are inspected only if a listener (or the `inspect` option) was there when
   * the action started.
   */
  Inspection: { key: SessionKey; event: InspectionEvent };
  /**
   * A text delta of the session's own run (not a sub-agent's) while its model call `step`
   * streams: `from` is where it starts in the call's text. What `agent.attach` follows live.
   */
  RunTextDelta: { key: SessionKey; runId: string; step: number; from: number; delta: string };
}

export type SessionRuntimeEventType = keyof SessionRuntimeEvents;
type Listener<K extends SessionRuntimeEventType> = (
  event: SessionRuntimeEvents[K] & { type: K },
) => void;

/** A minimal typed event hub. A throwing listener never breaks the runtime. */
export class SessionEventHub {
  private readonly listeners = new Map<SessionRuntimeEventType, Set<Listener<never>>>();
  private inspect: InspectOption | undefined;

  /** The runtime's own inspection observer (its `inspect` option), without the key. */
  inspectWith(inspect: InspectOption | undefined): void {
    this.inspect = inspect;
  }

  /**
   * The inspection function of one session's actors: the runtime's observer and the
   * `Inspection` listeners (with the key); undefined when nobody inspects.
   */
  inspector(key: SessionKey): ((event: InspectionEvent) => void) | undefined {
    const listening = this.has('Inspection');
    return combineInspectors(
      this.inspect,
      listening ? (event) => this.emit('Inspection', { key, event }) : undefined,
    );
  }

  on<K extends SessionRuntimeEventType>(type: K, listener: Listener<K>): () => void {
    const set = this.listeners.get(type) ?? new Set();
    set.add(listener);
    this.listeners.set(type, set);
    return () => set.delete(listener);
  }

  /** Whether anyone listens to `type`. */
  has(type: SessionRuntimeEventType): boolean {
    return (this.listeners.get(type)?.size ?? 0) > 0;
  }

  emit<K extends SessionRuntimeEventType>(type: K, event: SessionRuntimeEvents[K]): void {
    const listeners = this.listeners.get(type);
    if (listeners === undefined) return;
    for (const listener of listeners) {
      try {
        (listener as Listener<K>)({ ...event, type });
      } catch {
        // listeners observe; they do not get to fail the action
      }
    }
  }
}
