import { toObserver, type InspectionEvent, type Observer } from 'xstate';
import { isObject } from '../validation/option-checks.js';

/**
 * An XState inspection observer: a function of each inspection event, or an observer with
 * `next` (what `createActor(logic, { inspect })` takes, e.g. `@statelyai/inspect`'s
 * `inspector.inspect`). It sees the session actor, its run, each step and each sub-agent run.
 */
export type InspectOption = Observer<InspectionEvent> | ((event: InspectionEvent) => void);

/** What the `inspect` option checks accept. */
export const INSPECT_EXPECTED = 'a function or an observer with next (XState inspection)';

/** Whether `value` can be an `inspect` option. */
export function isInspectOption(value: unknown): boolean {
  return typeof value === 'function' || (isObject(value) && typeof value['next'] === 'function');
}

/**
 * One inspection function of several observers (undefined ones left out; none: undefined, so
 * XState builds no inspection events at all). An observer that throws never breaks the run.
 */
export function combineInspectors(
  ...inspectors: (InspectOption | undefined)[]
): ((event: InspectionEvent) => void) | undefined {
  const observers = inspectors
    .filter((i): i is InspectOption => i !== undefined)
    .map((i) => toObserver(i));
  if (!observers.length) return undefined;
  return (event) => {
    for (const observer of observers) {
      try {
        observer.next?.(event);
      } catch {
        // an inspector observes; it does not get to fail the session
      }
    }
  };
}
