import { fromPromise } from 'xstate';

/** A named actor the runtime provides; until then, a promise actor that fails saying so. */
export const notProvided = <TOutput, TInput>(name: string) =>
  fromPromise<never, unknown>(() =>
    Promise.reject(new Error(`actor "${name}" was not provided`)),
  ) as unknown as ReturnType<typeof fromPromise<TOutput, TInput>>;
