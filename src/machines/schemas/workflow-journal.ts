import { z } from 'zod';
import { SerializedError, plainJson } from './run-schemas.js';

/**
 * zod schemas of what a hosted app machine (`workflows()`) journals, checked on every read like
 * a run's entries: each event it took, with the state it reached (`event`), and each durable
 * step's outcome (`step`). The journal of an instance is the path it took, with times.
 */

/** Where an event a workflow took came from. */
export const WorkflowEventSource = z.enum(['start', 'send', 'timer', 'step', 'child', 'cancel']);

/** What a journaled `event` entry holds: the event taken and the state it led to. */
export const WorkflowEventOutput = z.lazy(() =>
  z.object({
    source: WorkflowEventSource,
    /** The event's type (its payload is not journaled: it may be large or personal). */
    type: z.string().min(1),
    /** The sender's id for the event (`send(id, event, { eventId })`), when it had one. */
    eventId: z.string().min(1).optional(),
    /** The machine's state value after the event (`snapshot.value`). */
    value: plainJson,
    /** The machine's status after the event. */
    status: z.enum(['active', 'done', 'error', 'stopped']),
  }),
);

/** What a journaled `step` entry holds: a durable step's outcome, replayed instead of running it. */
export const WorkflowStepOutput = z.lazy(() =>
  z.object({
    /** The step's name in the host's `steps`. */
    name: z.string().min(1),
    /** The invoked actor's id in the machine. */
    actorId: z.string().min(1),
    outcome: z.enum(['done', 'error']),
    /** The step's output (plain JSON) when it finished. */
    output: plainJson.optional(),
    /** The step's error when it failed. */
    error: SerializedError.optional(),
  }),
);

export type WorkflowEventOutput = z.output<typeof WorkflowEventOutput>;
export type WorkflowStepOutput = z.output<typeof WorkflowStepOutput>;
