import type { ActorLogic, ActorScope } from 'xstate';
import type { AnyActorSystem } from '../actors/journaled-step.js';
import type { SessionRecord } from '../persistence/session-store.js';
import type { InstanceCommand } from './instance-command.js';
import { readInstanceSnapshot } from './instance-record.js';
import type { InstanceOf } from './durable-actors.js';
import type { WorkflowHost } from './workflow-host.js';

/** The event that ends a child workflow's actor in its parent (`InstanceCommand` `child`). */
export interface ChildEnded {
  type: 'agentstate.child.ended';
  output?: unknown;
  error?: unknown;
}

/** A child workflow's actor: waits for the child instance, which lives in the store, to end. */
type ChildSnapshot =
  | { status: 'active'; output: undefined; error: undefined; input: unknown }
  | { status: 'done'; output: unknown; error: undefined; input: unknown }
  | { status: 'error'; output: undefined; error: unknown; input: unknown }
  | { status: 'stopped'; output: undefined; error: undefined; input: unknown };

/** The event a `child` command sends the child's actor. */
export function childEnded(command: InstanceCommand & { kind: 'child' }): ChildEnded {
  return {
    type: 'agentstate.child.ended',
    ...(command.error === undefined ? { output: command.output } : { error: command.error }),
  };
}

/** The id of the child instance a parent instance invokes as `actorId`. */
export function childInstanceId(parentId: string, actorId: string): string {
  return `${parentId}/${actorId}`;
}

/**
 * Another hosted machine invoked by a hosted machine, as actor logic: the child is an instance
 * of its own workflow (`workflow:<parent id>/<actor id>`, the parent's user), started once (a
 * restored parent finds it started), persisted, leased and recovered on its own. Its end reaches
 * the parent through the parent's inbox (a `child` command), and a restored parent whose child
 * ended meanwhile reads its end from the store: the invoke ends with the child's output (done)
 * or error.
 */
export function childWorkflowLogic(
  name: string,
  child: WorkflowHost,
  instanceOf: InstanceOf,
): ActorLogic<ChildSnapshot, ChildEnded, unknown, AnyActorSystem> {
  return {
    config: undefined,
    transition(snapshot, event) {
      if (snapshot.status !== 'active' || event.type !== 'agentstate.child.ended') return snapshot;
      if (event.error !== undefined) {
        return { status: 'error', output: undefined, error: event.error, input: snapshot.input };
      }
      return { status: 'done', output: event.output, error: undefined, input: snapshot.input };
    },
    getInitialSnapshot(_scope, input) {
      return { status: 'active', output: undefined, error: undefined, input };
    },
    start(snapshot, scope: ActorScope<ChildSnapshot, ChildEnded, AnyActorSystem>) {
      const parent = instanceOf(scope.system);
      if (!parent || snapshot.status !== 'active') return;
      const actorId = scope.self.id;
      const id = childInstanceId(parent.id, actorId);
      parent.link(actorId, { kind: 'workflow', name, id });
      const from = { workflow: parent.workflow, id: parent.id, actorId };
      // Held meanwhile: the parent leaves memory once its child was started (and is idle).
      void parent
        .hold(() => child.ensureChild(id, parent.userId, snapshot.input, from))
        .then(
          (ended) => {
            if (ended && scope.self.getSnapshot().status === 'active') scope.self.send(ended);
          },
          (error: unknown) => scope.self.send({ type: 'agentstate.child.ended', error }),
        );
    },
    getPersistedSnapshot: (snapshot) => snapshot,
    restoreSnapshot: (snapshot) => snapshot as ChildSnapshot,
  };
}

/** How a child instance ended, from its record (`undefined` while it runs or waits). */
export function childEndOf(record: SessionRecord): ChildEnded | undefined {
  if (record.status === 'active') return undefined;
  const { machine, host } = readInstanceSnapshot(record.sessionId, record.snapshot);
  const type = 'agentstate.child.ended';
  if (record.status === 'completed') return { type, output: machine.output };
  const error = host.cancelled
    ? {
        name: 'WorkflowCancelledError',
        message: 'the child workflow was cancelled',
        code: 'WORKFLOW_CANCELLED',
      }
    : machine.error;
  return {
    type,
    error: error ?? {
      name: 'Error',
      message: 'the child workflow failed',
      code: 'TOOL_STEP_FAILED',
    },
  };
}
