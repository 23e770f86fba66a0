import type {
  SessionInfo,
  SessionRecord,
  SessionStatus,
  UsageTotals,
} from '../persistence/session-store.js';
import { instanceIdOf } from '../workflow-host/instance-key.js';
import { readInstanceSnapshot, type InstanceLink } from '../workflow-host/instance-record.js';

/** A workflow instance as a listing shows it (no snapshot read). */
export interface WorkflowSummary {
  id: string;
  userId: string | undefined;
  /** The workflow's name. */
  workflow: string;
  /** `active` while running or waiting; `completed` (final state), `failed` (error or cancelled). */
  status: SessionStatus;
  createdAt: number;
  updatedAt: number;
  /** The earliest durable timer's due time (epoch ms). */
  nextTimerAt: number | undefined;
  /** A linked agent waits for a decision on a call (or a step waits for an operator). */
  awaitingApproval: boolean;
  /** Usage of the agent sessions it invoked. */
  usage: UsageTotals;
  /** The record's version (one more per save). */
  version: number;
}

/** A workflow instance read whole (`get`). */
export interface WorkflowInfo extends WorkflowSummary {
  /** The machine's state value. */
  value: unknown;
  context: unknown;
  /** The machine's output once it reached a final state. */
  output: unknown;
  /** The machine's error (`{ name, message, code }`) once it failed. */
  error: unknown;
  cancelled: { at: number; reason?: string | undefined } | undefined;
  /** Durable steps in flight (`inDoubt`: waiting for an operator). */
  steps: { actorId: string; name: string; step: number; startedAt: number; inDoubt: boolean }[];
  /** Durable timers: what fires when. */
  timers: { id: string; event: string; dueAt: number }[];
  /** Children that live elsewhere: the agents' linked sessions. */
  links: ({ actorId: string } & InstanceLink)[];
}

/** The summary of a listed instance record. */
export function workflowSummary(info: SessionInfo): WorkflowSummary {
  return {
    id: instanceIdOf(info.sessionId),
    userId: info.userId,
    workflow: info.workflow ?? '',
    status: info.status,
    createdAt: info.createdAt,
    updatedAt: info.updatedAt,
    nextTimerAt: info.approvalDeadline,
    awaitingApproval: info.awaitingApproval === true,
    usage: info.usage,
    version: info.version,
  };
}

/** The whole instance of a stored record (its snapshot checked). */
export function workflowInfo(record: SessionRecord): WorkflowInfo {
  const { machine, host } = readInstanceSnapshot(record.sessionId, record.snapshot);
  return {
    ...workflowSummary(record),
    value: machine.value,
    context: machine.context,
    output: machine.output,
    error: machine.error,
    cancelled: host.cancelled,
    steps: Object.entries(host.steps).map(([actorId, marker]) => ({
      actorId,
      name: marker.name,
      step: marker.step,
      startedAt: marker.startedAt,
      inDoubt: marker.inDoubt === true,
    })),
    timers: host.timers.map((t) => ({ id: t.id, event: t.event.type, dueAt: t.dueAt })),
    links: Object.entries(host.links).map(([actorId, link]) => ({ actorId, ...link })),
  };
}
