import type { AnyActorRef, AnyMachineSnapshot } from 'xstate';
import type { InstanceLink } from './instance-record.js';
import type { InstanceCommand } from './instance-command.js';

/** What the instance reads of a linked agent's snapshot: its phase and the calls it waits on. */
interface AgentChildSnapshot {
  status: string;
  context?: { phase?: string; interruptions?: { callId: string }[] } | undefined;
}

type Links = Readonly<Record<string, InstanceLink>>;

/** The live actor of each linked agent of the machine, with its snapshot. */
function* linkedAgents(
  snapshot: AnyMachineSnapshot,
  links: Links,
): Generator<{ actorId: string; ref: AnyActorRef; child: AgentChildSnapshot }> {
  const children = snapshot.children as Record<string, AnyActorRef | undefined>;
  for (const [actorId, link] of Object.entries(links)) {
    if (link.kind !== 'agent') continue;
    const ref = children[actorId];
    if (ref) yield { actorId, ref, child: ref.getSnapshot() as AgentChildSnapshot };
  }
}

/** Whether a linked agent's run executes in this process now. */
export function agentRunning(snapshot: AnyMachineSnapshot, links: Links): boolean {
  for (const { child } of linkedAgents(snapshot, links)) {
    if (child.context?.phase === 'running') return true;
  }
  return false;
}

/** Whether a linked agent waits for a decision on a call. */
export function agentAwaitingApproval(snapshot: AnyMachineSnapshot, links: Links): boolean {
  for (const { child } of linkedAgents(snapshot, links)) {
    if (child.context?.phase === 'awaitingApproval') return true;
  }
  return false;
}

/** The linked agent actor waiting for a decision on `callId`. */
export function agentWaitingFor(
  snapshot: AnyMachineSnapshot,
  links: Links,
  callId: string,
): AnyActorRef | undefined {
  for (const { ref, child } of linkedAgents(snapshot, links)) {
    if (child.context?.interruptions?.some((i) => i.callId === callId)) return ref;
  }
  return undefined;
}

/** Cancels every linked agent's run (the instance was cancelled). */
export function cancelAgents(snapshot: AnyMachineSnapshot, links: Links): void {
  for (const { ref } of linkedAgents(snapshot, links)) ref.send({ type: 'agent.cancel' });
}

/** The agent actor's event for a decision. */
export function decisionEvent(
  command: InstanceCommand & { kind: 'decision' },
): { type: 'agent.approve' | 'agent.reject'; callId: string } & Record<string, unknown> {
  const always = command.always ? { always: true } : {};
  if (command.approve) return { type: 'agent.approve', callId: command.callId, ...always };
  return {
    type: 'agent.reject',
    callId: command.callId,
    ...(command.message === undefined ? {} : { message: command.message }),
    ...always,
  };
}
