import { createHash } from 'node:crypto';
import type { AnyStateMachine, AnyMachineSnapshot, StateNode } from 'xstate';
import { UndeclaredActorError } from '../errors/workflow-errors.js';

type AnyNode = StateNode<any, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** What pins an instance to the definition that saved it (`HostMeta.fingerprint`, `states`). */
export interface DefinitionShape {
  /** A hash of the machine's structure: states, their transitions and targets, invokes, delays. */
  fingerprint: string;
  /** Every state's id, in document order. */
  states: string[];
}

function nodesOf(node: AnyNode): AnyNode[] {
  return [node, ...Object.values(node.states).flatMap((child) => nodesOf(child as AnyNode))];
}

/** The machine's structure as plain data (what the fingerprint hashes). */
function structureOf(node: AnyNode): unknown {
  const transitions = [...node.transitions.entries()].map(([event, list]) => [
    event,
    list.map((t) => (t.target ?? []).map((target) => target.id)),
  ]);
  return {
    id: node.id,
    type: node.type,
    invoke: node.invoke.map((i) => [i.id, typeof i.src === 'string' ? i.src : 'inline']),
    on: transitions,
    states: Object.values(node.states).map((child) => structureOf(child as AnyNode)),
  };
}

/** The fingerprint and state list of `machine`. */
export function definitionShape(machine: AnyStateMachine): DefinitionShape {
  const json = JSON.stringify(structureOf(machine.root as AnyNode));
  return {
    fingerprint: createHash('sha256').update(json).digest('hex').slice(0, 16),
    states: nodesOf(machine.root as AnyNode).map((node) => node.id),
  };
}

/** What changed between a stored definition's states and this one's, in words. */
export function definitionChanges(stored: readonly string[], current: readonly string[]): string[] {
  const now = new Set(current);
  const before = new Set(stored);
  const removed = stored.filter((id) => !now.has(id));
  const added = current.filter((id) => !before.has(id));
  const changes: string[] = [];
  if (removed.length > 0) changes.push(`states removed: ${removed.join(', ')}`);
  if (added.length > 0) changes.push(`states added: ${added.join(', ')}`);
  if (changes.length === 0) changes.push('transitions, invokes or delays changed');
  return changes;
}

/**
 * Refuses a machine with an actor the host cannot make durable (`UndeclaredActorError`): an
 * implementation in `setup({ actors })` or an invoked `src` that is not one of `declared`, or
 * an invoke of inline logic (it would persist as `src: {}` and break the restore).
 */
export function checkDeclaredActors(
  name: string,
  machine: AnyStateMachine,
  declared: ReadonlySet<string>,
): void {
  const implemented = Object.keys(machine.implementations.actors);
  for (const actor of implemented) {
    if (!declared.has(actor)) throw new UndeclaredActorError(name, actor);
  }
  for (const node of nodesOf(machine.root as AnyNode)) {
    for (const invoke of node.invoke) {
      if (typeof invoke.src !== 'string')
        throw new UndeclaredActorError(name, `${invoke.id} (inline logic)`);
      if (!declared.has(invoke.src)) throw new UndeclaredActorError(name, invoke.src);
    }
  }
}

/** The event types the snapshot's active states take (XState's own events left out). */
export function acceptedEvents(snapshot: AnyMachineSnapshot): string[] {
  const events = new Set<string>();
  for (const node of snapshot._nodes) {
    for (const event of node.ownEvents as string[])
      if (!event.startsWith('xstate.')) events.add(event);
  }
  return [...events].sort();
}
