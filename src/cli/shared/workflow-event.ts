import { InvalidEventError } from '../../errors/workflow-errors.js';
import { checkEvent, type InstanceCommand } from '../../workflow-host/instance-command.js';

/**
 * The event of `workflows send <id> <event>` for instance `workflowId`: a JSON object with a
 * `type` (`'{"type":"PAY","amount":5}'`), or a bare event type (`PAY`, `order.ship`), checked as
 * the host checks what it is sent (`InvalidEventError`, exit 2), before anything is opened.
 */
export function parseWorkflowEvent(
  workflowId: string,
  text: string,
): InstanceCommand & { kind: 'event' } {
  const trimmed = text.trim();
  if (/^[A-Za-z_][\w.:-]*$/.test(trimmed)) return checkEvent(workflowId, { type: trimmed });
  let value: unknown;
  try {
    value = JSON.parse(trimmed);
  } catch (error) {
    throw new InvalidEventError(
      workflowId,
      `must be JSON ('{"type":"PAY"}') or an event type: ${(error as Error).message}`,
    );
  }
  return checkEvent(workflowId, value);
}
