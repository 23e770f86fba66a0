import { isPlainJson } from '../../validation/plain-json.js';
import { CliUsageError } from './cli-errors.js';

/** An event for a workflow instance, as the command line takes it: plain JSON with a `type`. */
export interface WorkflowEventArg {
  type: string;
  [key: string]: unknown;
}

/**
 * The event of `workflows send <id> <event>`: a JSON object with a non-empty string `type`
 * (`'{"type":"PAY","amount":5}'`), or a bare event type (`PAY`, `order.ship`). Anything else is
 * a usage error naming what is wrong, before anything is opened.
 */
export function parseWorkflowEvent(text: string, command: string): WorkflowEventArg {
  const trimmed = text.trim();
  if (/^[A-Za-z_][\w.:-]*$/.test(trimmed)) return checkedType({ type: trimmed }, command);
  let value: unknown;
  try {
    value = JSON.parse(trimmed);
  } catch (error) {
    throw new CliUsageError(
      `the event must be JSON ('{"type":"PAY"}') or an event type: ${(error as Error).message}`,
      command,
    );
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new CliUsageError(
      `the event must be a JSON object with a "type", got ${oneWord(value)}`,
      command,
    );
  }
  const type = (value as { type?: unknown }).type;
  if (typeof type !== 'string' || type === '') {
    throw new CliUsageError('the event needs a "type": a non-empty string', command);
  }
  if (!isPlainJson(value)) throw new CliUsageError('the event must be plain JSON', command);
  return checkedType(value as WorkflowEventArg, command);
}

function oneWord(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`;
}

/** XState's own events (`xstate.done.actor.pay`, ...) come from its actors, never from a sender. */
function checkedType(event: WorkflowEventArg, command: string): WorkflowEventArg {
  if (event.type.startsWith('xstate.')) {
    throw new CliUsageError(
      `"${event.type}" is one of XState's own events (its actors send them): send an event of the app's machine`,
      command,
    );
  }
  return event;
}
