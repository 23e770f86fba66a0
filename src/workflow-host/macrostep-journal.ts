import type { InspectionEvent } from 'xstate';
import type { JournalEntry } from '../persistence/session-store.js';
import type { WorkflowEventOutput } from '../machines/schemas/workflow-journal.js';
import type { HostMeta } from './instance-record.js';

type Source = WorkflowEventOutput['source'];

/** Where the event being applied came from (set around a send, a timer's firing, a cancel). */
export interface EventOrigin {
  source: Source;
  eventId?: string | undefined;
}

interface TakenEvent extends EventOrigin {
  type: string;
  step: number;
}

/**
 * The journal of the events an instance's machine takes: each numbered in the journal when it
 * is taken (so a step it starts is numbered after it), and written, with the state value and
 * status it led to, when its macrostep ends. Where each came from: the origin set around the
 * call that sent it, else XState's own (`xstate.init`: start; `xstate.done.actor.*`: a step,
 * an agent or a child workflow finishing).
 */
export class MacrostepJournal {
  private readonly taken: TakenEvent[] = [];
  private origin: EventOrigin | undefined;
  /** Set while a restored actor starts: its `xstate.init` is not an event it takes. */
  restoring = false;

  constructor(
    private readonly meta: HostMeta,
    /** Told of an actor's done or error event (a link ends; an agent's usage rolls up). */
    private readonly onDone: (actorId: string, output: unknown) => void,
  ) {}

  /** Runs `fn` with the events it causes marked as coming from `origin`. */
  from(origin: EventOrigin, fn: () => void): void {
    const before = this.origin;
    this.origin = origin;
    try {
      fn();
    } finally {
      this.origin = before;
    }
  }

  /** Adds an event the host applies itself (a cancel). */
  add(type: string, origin: EventOrigin): void {
    this.taken.push({ type, ...origin, step: ++this.meta.seq });
  }

  /** XState's inspection: numbers each event the machine itself (the root actor) takes. */
  inspected(event: InspectionEvent): void {
    if (event.type !== '@xstate.event') return;
    if (event.actorRef.sessionId !== event.rootId) return;
    const type = event.event.type;
    if (type === 'xstate.init' && this.restoring) return;
    // A child's snapshot changing (an agent's phase): its effect shows in the next event's state.
    if (type.startsWith('xstate.snapshot.')) return;
    const origin: EventOrigin = this.origin ?? { source: this.sourceOf(type) };
    this.taken.push({ type, ...origin, step: ++this.meta.seq });
    const ended = /^xstate\.(done|error)\.actor\.(.+)$/.exec(type);
    if (ended?.[2] !== undefined) {
      const output = ended[1] === 'done' ? (event.event as { output?: unknown }).output : undefined;
      this.onDone(ended[2], output);
    }
  }

  private sourceOf(type: string): Source {
    if (type === 'xstate.init') return 'start';
    const actorId = type.replace(/^xstate\.(done|error)\.actor\./, '');
    return this.meta.links[actorId]?.kind === 'workflow' ? 'child' : 'step';
  }

  /** The journal entries of the events taken since the last macrostep ended. */
  entries(
    value: WorkflowEventOutput['value'],
    status: WorkflowEventOutput['status'],
    at: number,
  ): JournalEntry[] {
    return this.taken.splice(0).map(({ step, type, source, eventId }) => ({
      runId: this.meta.runId,
      step,
      kind: 'event',
      output: {
        source,
        type,
        ...(eventId === undefined ? {} : { eventId }),
        value,
        status,
      } satisfies WorkflowEventOutput,
      at,
    }));
  }
}
