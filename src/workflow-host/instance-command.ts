import type { MessageSubmission, QueuedMessage } from '../persistence/message-inbox.js';
import type { SessionKey } from '../persistence/session-store.js';
import { InvalidEventError } from '../errors/workflow-errors.js';
import { isPlainJson } from '../validation/plain-json.js';

/** An operator's answer for a step waiting in doubt (`onInterrupted: 'ask'`). */
export type StepResolution =
  { action: 'retry' } | { action: 'result'; output: unknown } | { action: 'fail' };

/**
 * What reaches an instance through its inbox, from this process or another (the store's
 * message inbox, so that each is applied exactly once and in one order): an event, a cancel, a
 * decision on a call a linked agent waits for, an operator's answer for a step in doubt.
 */
export type InstanceCommand =
  | { kind: 'event'; event: { type: string; [key: string]: unknown }; eventId?: string | undefined }
  | { kind: 'cancel'; reason?: string | undefined }
  | {
      kind: 'decision';
      callId: string;
      approve: boolean;
      always?: boolean | undefined;
      message?: string | undefined;
    }
  | { kind: 'resolve'; actorId: string; resolution: StepResolution };

/** The key under which an inbox entry holds its command. */
const FIELD = 'workflow';

/** A command as an inbox submission (`queueMessage`). */
export function commandSubmission(
  key: SessionKey,
  command: InstanceCommand,
  at: number,
): MessageSubmission {
  return { key, kind: 'queue', items: [], options: { [FIELD]: command }, at };
}

/** Checks an event a caller sends (`InvalidEventError` naming what is wrong). */
export function checkEvent(
  workflowId: string,
  event: unknown,
): InstanceCommand & { kind: 'event' } {
  if (typeof event !== 'object' || event === null || Array.isArray(event)) {
    throw new InvalidEventError(workflowId, 'must be an object with a string "type"');
  }
  const type = (event as { type?: unknown }).type;
  if (typeof type !== 'string' || type.length === 0) {
    throw new InvalidEventError(workflowId, 'must have a non-empty string "type"');
  }
  if (type.startsWith('xstate.')) {
    throw new InvalidEventError(workflowId, `"${type}" is XState's own event, not one to send`);
  }
  if (!isPlainJson(event)) {
    throw new InvalidEventError(
      workflowId,
      'must be plain JSON (no Date, Map, class, function, NaN)',
    );
  }
  return { kind: 'event', event: event as { type: string } };
}

/** The command an inbox entry holds (`InvalidEventError` for one that holds none). */
export function instanceCommand(workflowId: string, message: QueuedMessage): InstanceCommand {
  const command = message.options[FIELD] as InstanceCommand | undefined;
  if (typeof command !== 'object' || command === null) {
    throw new InvalidEventError(workflowId, `inbox entry ${message.id} holds no workflow command`);
  }
  if (command.kind === 'event') {
    const checked = checkEvent(workflowId, command.event);
    return command.eventId === undefined ? checked : { ...checked, eventId: command.eventId };
  }
  return command;
}
