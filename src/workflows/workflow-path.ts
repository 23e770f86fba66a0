import type { JournalEntry } from '../persistence/session-store.js';
import type { WorkflowEventOutput } from '../machines/schemas/workflow-journal.js';

/** One event an instance took, as its journal holds it: when, from where, the state reached. */
export interface WorkflowPathEvent {
  /** Its number in the instance's journal. */
  step: number;
  /** When it was applied (epoch ms). */
  at: number;
  source: WorkflowEventOutput['source'];
  type: string;
  eventId?: string | undefined;
  /** The machine's state value after it. */
  value: unknown;
  status: WorkflowEventOutput['status'];
}

/** The path an instance took: its journal's `event` entries, oldest first. */
export function workflowPath(journal: readonly JournalEntry[]): WorkflowPathEvent[] {
  return journal
    .filter((e) => e.kind === 'event')
    .map((e) => {
      const o = e.output as WorkflowEventOutput;
      return {
        step: e.step,
        at: e.at,
        source: o.source,
        type: o.type,
        ...(o.eventId === undefined ? {} : { eventId: o.eventId }),
        value: o.value,
        status: o.status,
      };
    });
}
