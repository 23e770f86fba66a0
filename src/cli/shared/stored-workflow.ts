import { z } from 'zod';
import { InvalidSessionRecordError } from '../../errors/session-errors.js';
import { SerializedError, plainJson } from '../../machines/schemas/run-schemas.js';
import { stateName } from '../../runs/session-status.js';
import type { SessionRecord, SessionStatus, UsageTotals } from '../../persistence/session-store.js';

/** The record key prefix of a hosted app machine's instance: `workflow:<id>`. */
export const WORKFLOW_KEY_PREFIX = 'workflow:';

/** The instance id of a workflow record's key (`workflow:<id>`). */
export function instanceIdOf(recordKey: string): string {
  return recordKey.startsWith(WORKFLOW_KEY_PREFIX)
    ? recordKey.slice(WORKFLOW_KEY_PREFIX.length)
    : recordKey;
}

/** A machine's state value in one line: `shipping.packing`; parallel regions comma-separated. */
export function stateText(value: unknown): string {
  return isStateValue(value) ? stateName(value) : JSON.stringify(value);
}

type StateValue = string | { [key: string]: StateValue };

function isStateValue(value: unknown): value is StateValue {
  if (typeof value === 'string') return true;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  return Object.values(value).every(isStateValue);
}

const Timer = z.object({
  id: z.string(),
  source: z.string().optional(),
  target: z.string().optional(),
  event: z.object({ type: z.string() }).passthrough(),
  dueAt: z.number(),
});

const Step = z.object({
  step: z.number().int().nonnegative(),
  name: z.string(),
  startedAt: z.number(),
  restarts: z.number().int().nonnegative().optional(),
});

const Link = z.union([
  z.object({ sessionId: z.string().min(1) }),
  z.object({ workflowId: z.string().min(1) }),
]);

const HostMeta = z.object({
  runId: z.string().min(1),
  fingerprint: z.string().optional(),
  version: z.number().int().optional(),
  seq: z.number().int().nonnegative(),
  steps: z.record(z.string(), Step).default({}),
  timers: z.array(Timer).default([]),
  events: z.array(z.string()).default([]),
  cancelled: z.object({ at: z.number(), reason: z.string().optional() }).optional(),
  links: z.record(z.string(), Link).default({}),
});

const Envelope = z.object({
  format: z.literal(1),
  machine: z
    .object({
      value: plainJson,
      status: z.string(),
      context: plainJson.optional(),
      output: plainJson.optional(),
      error: plainJson.optional(),
    })
    .passthrough(),
  host: HostMeta,
});

/** A durable timer of an instance: the event it sends and when. */
export type StoredTimer = z.output<typeof Timer>;
/** A durable step in flight: its journal step, its name and when it started. */
export type StoredStep = z.output<typeof Step>;
/** What an invoked actor of the instance is: a linked agent session or a child workflow. */
export type StoredLink = z.output<typeof Link>;

/** An instance of a hosted app machine as its record holds it (the store's stored layout). */
export interface StoredWorkflow {
  id: string;
  userId: string | undefined;
  workflow: string;
  status: SessionStatus;
  /** The machine's state value. */
  value: unknown;
  context: unknown;
  output?: unknown;
  error?: z.output<typeof SerializedError> | undefined;
  machineVersion: string;
  /** The record's version (one per save). */
  version: number;
  createdAt: number;
  updatedAt: number;
  nextTimerAt?: number | undefined;
  awaitingApproval: boolean;
  cancelled?: { at: number; reason?: string | undefined } | undefined;
  usage: UsageTotals;
  /** The journal the instance's path is in. */
  runId: string;
  /** The ids of the latest events it applied (`send(id, event, { eventId })`). */
  events: string[];
  steps: Record<string, StoredStep>;
  timers: StoredTimer[];
  links: Record<string, StoredLink>;
}

/**
 * The instance a workflow record holds, its envelope checked (a damaged one is
 * `InvalidSessionRecordError` naming the key).
 */
export function storedWorkflow(record: SessionRecord & { workflow: string }): StoredWorkflow {
  const parsed = Envelope.safeParse(record.snapshot);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new InvalidSessionRecordError(
      record.sessionId,
      issue?.message ?? 'not a workflow snapshot',
      { sessionId: record.sessionId, field: ['snapshot', ...(issue?.path ?? [])].join('.') },
    );
  }
  const { machine, host } = parsed.data;
  const error = SerializedError.safeParse(machine.error);
  return {
    id: instanceIdOf(record.sessionId),
    userId: record.userId,
    workflow: record.workflow,
    status: record.status,
    value: machine.value,
    context: machine.context,
    ...(machine.output === undefined ? {} : { output: machine.output }),
    ...(error.success ? { error: error.data } : {}),
    machineVersion: record.machineVersion,
    version: record.version,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    nextTimerAt: record.approvalDeadline,
    awaitingApproval: record.awaitingApproval === true,
    ...(host.cancelled ? { cancelled: host.cancelled } : {}),
    usage: record.usage,
    runId: host.runId,
    events: host.events,
    steps: host.steps,
    timers: host.timers,
    links: host.links,
  };
}
