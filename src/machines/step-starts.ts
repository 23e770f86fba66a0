import type { z } from 'zod';
import type { RunMachineContext } from './run-types.js';
import type { StepStart as StepStartSchema } from './schemas/run-schemas.js';

/**
 * When a step first started (epoch ms), how many restores started it again and how many times
 * it was tried again after it failed (a model call, resumed; absent: never).
 */
export type StepStart = z.output<typeof StepStartSchema>;

/**
 * The run's context with a step's start noted: as the run starts the step (its
 * `noteStepStarts` action), or again by a `STEP_STARTED` event when a restore restarts it.
 */
export function withStepStart(
  context: Pick<RunMachineContext, 'stepStarts'>,
  event: { step: number; at: number; restarts: number; retries?: number | undefined },
): Pick<RunMachineContext, 'stepStarts'> {
  const start: StepStart = { at: event.at, restarts: event.restarts };
  if (event.retries) start.retries = event.retries;
  return { stepStarts: { ...context.stepStarts, [event.step]: start } };
}

/**
 * How the runtime notes steps' starts with its session's clock: the run's context with the
 * start of each of `steps` noted (`session-host/step-start-timing.ts`). The pure machine has
 * no clock; the runtime puts this on the session's actor system (every run of the session,
 * sub-agent runs included, shares it), and the run's own assigns note the steps they start
 * in the same assign that takes the transition's event in (one context copy, not two).
 */
export type StepStartNoter = (
  context: RunMachineContext,
  steps: readonly number[],
) => Pick<RunMachineContext, 'stepStarts'>;

/** The key of a session's noter on its actor system. */
const NOTER = Symbol('agentstate.stepStartNoter');

/** Gives a session's actor system the noter of its steps' starts (see `StepStartNoter`). */
export function provideStepStartNoter(system: object, noter: StepStartNoter): void {
  Object.defineProperty(system, NOTER, { value: noter });
}

/**
 * The starts of `steps` noted in `context` by the noter of the actor system the run works in;
 * nothing without one (the bare machine: its steps then note their start with `STEP_STARTED`).
 */
export function stepStartsNoted(
  system: object,
  context: RunMachineContext,
  steps: readonly number[],
): Partial<Pick<RunMachineContext, 'stepStarts'>> {
  const noter = (system as { [NOTER]?: StepStartNoter })[NOTER];
  return noter && steps.length > 0 ? noter(context, steps) : {};
}

/**
 * A transition's patch of the run's context, and the start of the step it goes on to (a model
 * call, an approval check, a guardrail check: at the step number the patch leaves), noted in
 * the same patch.
 */
export function startingNextStep(
  system: object,
  context: RunMachineContext,
  patch: Partial<RunMachineContext>,
): Partial<RunMachineContext> {
  const next = { ...context, ...patch };
  return { ...patch, ...stepStartsNoted(system, next, [next.step]) };
}
