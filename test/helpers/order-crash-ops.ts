import type { WorkflowInfo } from '../../src/index.js';
import type { OrderInput } from '../../examples/order-flow.js';

/**
 * The operations of the order workflow's crash test (order-crash-worker.ts runs one per
 * process), the orders they drive and what the worker reports.
 */
export const ORDER_OPS = ['start', 'approve', 'notes', 'later', 'decide'] as const;
export type OrderOp = (typeof ORDER_OPS)[number];

export const ORDER_USER = 'shop';
export const CRASH_ORDERS: OrderInput[] = [
  { orderId: 'A', customer: 'alice', amountUsd: 40, complaint: 'the mug is cracked' },
  { orderId: 'B', customer: 'bob', amountUsd: 120, complaint: 'the lamp does not turn on' },
];

/** One order as the worker reports it. */
export interface OrderReport {
  status: WorkflowInfo['status'];
  value: unknown;
  context: unknown;
  output: unknown;
  /** The journal's events: `<source> <type> <eventId?>`, in order. */
  events: string[];
  /** The journal's steps: `<name> <outcome>`, in order. */
  steps: string[];
}

/** Each order's report, by order id. */
export type OrderCrashResult = Record<string, OrderReport>;

/**
 * The kinds of checkpoint a kill is planned at: a store write (`save-before`, `save-after`,
 * `create-...`), a model call, a step before its effect (`begin <step> <order>`), a step after
 * its effect and before its outcome is journaled (`end ...`: in doubt), or any of them.
 */
export const CHECKPOINT_KINDS = ['write', 'model', 'begin', 'end', 'any'] as const;
export type CheckpointKind = (typeof CHECKPOINT_KINDS)[number];

/** Whether a checkpoint's label is of `kind`. */
export function checkpointIs(label: string, kind: string): boolean {
  if (kind === 'any') return true;
  if (kind === 'write') return label.startsWith('save-') || label.startsWith('create-');
  if (kind === 'model') return label === 'model';
  return label.startsWith(`${kind} `);
}
