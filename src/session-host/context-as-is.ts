import type { AnyStateMachine } from 'xstate';

/**
 * Makes `machine` persist its snapshots' context as it is, without XState's deep walk of it
 * (`persistContext`, at every save, for the session and each run): the walk looks for actor
 * refs to replace, and the contexts of the session and run machines hold none (their children,
 * spawned with `spawnChild`, are persisted beside the context, as before). The persisted
 * snapshot is otherwise XState's own, with the same fields in the same order (its `context`
 * is the snapshot's, which XState's walk also returns when it finds no ref). Applied once, to
 * the machines a runtime creates its session actors from (`run-wiring.ts`).
 */
export function persistingContextAsIs<M extends AnyStateMachine>(machine: M): M {
  const persist = machine.getPersistedSnapshot.bind(machine);
  const asIs: M['getPersistedSnapshot'] = (snapshot, options) => {
    const persisted = persist({ ...snapshot, context: undefined }, options) as unknown as {
      context: unknown;
    };
    persisted.context = snapshot.context;
    return persisted as ReturnType<M['getPersistedSnapshot']>;
  };
  Object.defineProperty(machine, 'getPersistedSnapshot', { value: asIs });
  return machine;
}
