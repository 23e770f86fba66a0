import { z } from 'zod';
import { plainJson } from '../machines/schemas/run-schemas.js';
import { InvalidSessionRecordError } from '../errors/session-errors.js';
import { firstField } from '../machines/schemas/stored-value-checks.js';

/**
 * What a hosted app machine's instance keeps in its record's `snapshot`: the machine's
 * persisted snapshot (XState's `getPersistedSnapshot()`, plain JSON) and what the host needs to
 * make it durable (`HostMeta`). Checked on every load: a damaged one is
 * `InvalidSessionRecordError` naming the key and field, and nothing runs.
 */

/** A durable step in flight: started (its start saved), not yet finished. */
export const StepInFlight = z.object({
  /** Its number in the instance's journal (the entry its outcome is written at). */
  step: z.number().int().nonnegative(),
  name: z.string().min(1),
  startedAt: z.number().int().nonnegative(),
  /** Times it started anew after its process stopped. */
  restarts: z.number().int().positive().optional(),
  /** Set while it waits for an operator (`onInterrupted: 'ask'`). */
  inDoubt: z.literal(true).optional(),
});

/** A delayed event (an `after` delay, a delayed `sendTo`/`raise`) with its absolute due time. */
export const DurableTimer = z.object({
  /** XState's id of the delayed event (cancelled by it on state exit). */
  id: z.string().min(1),
  /** The actor that scheduled it and the one it is for: `''` the machine, else a child's id. */
  source: z.string(),
  target: z.string(),
  event: z.record(z.string(), plainJson).and(z.object({ type: z.string().min(1) })),
  /** Epoch milliseconds, from the host's clock. */
  dueAt: z.number().int().nonnegative(),
});

/** A child the machine invoked that lives elsewhere: an agent's session, a child workflow. */
export const InstanceLink = z.object({
  kind: z.enum(['agent', 'workflow']),
  /** The actor's name in the host's `agents` / `children`. */
  name: z.string().min(1),
  /** The linked session's id (agent) or the child instance's id (workflow). */
  id: z.string().min(1),
});

/** What the host keeps beside the machine's snapshot. */
export const HostMeta = z.object({
  /** The journal's run id: every entry of the instance is under it. */
  runId: z.string().min(1),
  /** The definition that saved it (`definitionShape`'s fingerprint) and its `version`. */
  fingerprint: z.string().min(1),
  version: z.number().int().positive(),
  /** The states of that definition, to name what changed when another one loads it. */
  states: z.array(z.string()),
  /** The last journal step written. */
  seq: z.number().int().nonnegative(),
  steps: z.record(z.string(), StepInFlight),
  timers: z.array(DurableTimer),
  /** Ids of the events applied lately (the latest 64), so a repeated send is applied once. */
  events: z.array(z.string()),
  links: z.record(z.string(), InstanceLink),
  /** The parent instance, for a child workflow: where its end is told. */
  parent: z.object({ id: z.string().min(1), actorId: z.string().min(1) }).optional(),
  cancelled: z.object({ at: z.number(), reason: z.string().optional() }).optional(),
});

export const InstanceSnapshot = z.object({
  format: z.literal(1),
  machine: z.record(z.string(), plainJson),
  host: HostMeta,
});

export type StepInFlight = z.output<typeof StepInFlight>;
export type DurableTimer = z.output<typeof DurableTimer>;
export type InstanceLink = z.output<typeof InstanceLink>;
export type HostMeta = z.output<typeof HostMeta>;
export type InstanceSnapshot = z.output<typeof InstanceSnapshot>;

/** The latest applied event ids kept (`HostMeta.events`). */
export const KEPT_EVENT_IDS = 64;

/** The stored snapshot of the instance at `key`, checked. */
export function readInstanceSnapshot(key: string, value: unknown): InstanceSnapshot {
  const parsed = InstanceSnapshot.safeParse(value);
  if (!parsed.success) {
    throw new InvalidSessionRecordError(key, z.prettifyError(parsed.error), {
      field: firstField(parsed.error),
      cause: parsed.error,
    });
  }
  return parsed.data;
}
