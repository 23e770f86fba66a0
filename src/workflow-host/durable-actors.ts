import { fromPromise, type AnyActorLogic, type AnyStateMachine } from 'xstate';
import type { AgentActorLogic } from '../agent/agent-actor-types.js';
import { stepDefinition, type StepSource } from './step-definition.js';
import { INSTANCE_PREFIX } from './instance-key.js';
import type { WorkflowInstance } from './workflow-instance.js';

/** Finds the instance an actor runs in, by its actor system. */
export type InstanceOf = (system: unknown) => WorkflowInstance | undefined;

/** The linked session of an agent invoked as `actorId` by instance `id`. */
export function linkedSessionId(id: string, actorId: string): string {
  return `${INSTANCE_PREFIX}${id}/${actorId}`;
}

/**
 * A step's logic as the host runs it: `fromPromise` logic that journals the step through its
 * instance (`WorkflowInstance.runStep`): started before it runs, its outcome saved with the
 * macrostep that takes it, replayed or decided by its in-doubt policy after a crash.
 */
function durableStep(name: string, source: StepSource, instanceOf: InstanceOf): AnyActorLogic {
  const step = stepDefinition(name, source);
  return fromPromise(async ({ input, self, signal, system }) => {
    const instance = instanceOf(system);
    if (!instance) throw new Error(`step "${name}" ran outside a workflow instance`);
    return instance.runStep(name, step, self.id, input, signal);
  });
}

/**
 * An agent's actor logic (`agent.asActor({ store })`) as a linked session of the instance: its
 * session id is the instance's and the actor's (`workflow:<id>/<actor id>`), its user the
 * instance's, and the instance records the link (its approvals surface on the instance).
 */
function linkedAgent(
  name: string,
  logic: AgentActorLogic,
  instanceOf: InstanceOf,
): AgentActorLogic {
  return {
    ...logic,
    getInitialSnapshot(scope, input) {
      const instance = instanceOf(scope.system);
      if (!instance) return logic.getInitialSnapshot(scope, input);
      const sessionId = linkedSessionId(instance.id, scope.self.id);
      instance.link(scope.self.id, { kind: 'agent', name, id: sessionId });
      return logic.getInitialSnapshot(scope, { ...input, sessionId, userId: instance.userId });
    },
    transition(snapshot, event, scope) {
      const next = logic.transition(snapshot, event, scope);
      // Its phase and the calls it waits on live in its snapshot: the instance saves them.
      if (next !== snapshot) instanceOf(scope.system)?.childChanged();
      return next;
    },
  };
}

/** The app's machine with every declared actor made durable (`machine.provide`). */
export function durableMachine(
  machine: AnyStateMachine,
  actors: {
    steps: Readonly<Record<string, StepSource>>;
    agents: Readonly<Record<string, AgentActorLogic>>;
  },
  instanceOf: InstanceOf,
): AnyStateMachine {
  const provided: Record<string, AnyActorLogic> = {};
  for (const [name, source] of Object.entries(actors.steps)) {
    provided[name] = durableStep(name, source, instanceOf);
  }
  for (const [name, logic] of Object.entries(actors.agents)) {
    provided[name] = linkedAgent(name, logic, instanceOf);
  }
  return machine.provide({ actors: provided as never });
}
