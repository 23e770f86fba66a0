import type { AnyEventObject, AnyMachineSnapshot } from 'xstate';
import { EventNotAcceptedError, WorkflowCancelledError } from '../errors/workflow-errors.js';
import { UnknownCallError } from '../errors/run-errors.js';
import { acceptedEvents } from './machine-definition.js';
import { KEPT_EVENT_IDS, type HostMeta } from './instance-record.js';
import type { InstanceCommand, StepResolution } from './instance-command.js';
import type { EventOrigin } from './macrostep-journal.js';
import { agentWaitingFor, cancelAgents, decisionEvent } from './linked-agents.js';

/** What a command acts on: the live instance, seen through what the commands need. */
export interface CommandTarget {
  id: string;
  meta: HostMeta;
  now: number;
  snapshot(): AnyMachineSnapshot;
  /** Sends the machine an event, marked as coming from `origin`. */
  send(event: AnyEventObject, origin: EventOrigin): void;
  /** Journals an event the host applies itself. */
  note(type: string, origin: EventOrigin): void;
  /** An operator's answer for a step in doubt; false when none waits. */
  answer(actorId: string, resolution: StepResolution): boolean;
  /** Ends a macrostep the machine did not run itself (a cancel, a decision). */
  macrostep(): void;
}

/**
 * What each command taken from an instance's inbox does; a refused one throws its typed error
 * (nothing it would change is changed): an event once per id and only where the state accepts
 * it, a cancel that ends the instance and its agents' runs, a decision for the linked agent
 * that waits on the call, an operator's answer for a step in doubt.
 */
export function applyCommand(
  target: CommandTarget,
  command: InstanceCommand,
  queuedId: string,
): void {
  const { id, meta } = target;
  if (meta.cancelled) throw new WorkflowCancelledError(id);
  const snapshot = target.snapshot();
  switch (command.kind) {
    case 'event': {
      const eventId = command.eventId ?? queuedId;
      if (meta.events.includes(eventId)) return; // applied before: once
      if (snapshot.status !== 'active' || !snapshot.can(command.event)) {
        const accepted = snapshot.status === 'active' ? acceptedEvents(snapshot) : [];
        throw new EventNotAcceptedError(id, command.event.type, snapshot.value, accepted);
      }
      meta.events = [...meta.events, eventId].slice(-KEPT_EVENT_IDS);
      target.send(command.event, { source: 'send', eventId });
      return;
    }
    case 'cancel': {
      const reason = command.reason === undefined ? {} : { reason: command.reason };
      meta.cancelled = { at: target.now, ...reason };
      cancelAgents(snapshot, meta.links);
      target.note('workflow.cancel', { source: 'cancel' });
      target.macrostep();
      return;
    }
    case 'decision': {
      const agent = agentWaitingFor(snapshot, meta.links, command.callId);
      if (!agent) throw new UnknownCallError(command.callId, { sessionId: id });
      agent.send(decisionEvent(command));
      target.macrostep();
      return;
    }
    case 'resolve': {
      if (!target.answer(command.actorId, command.resolution)) {
        throw new UnknownCallError(command.actorId, { sessionId: id });
      }
      return;
    }
  }
}
