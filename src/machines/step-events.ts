import type { RunMachineOutput } from './run-types.js';
import type { ToolCallOutput } from './step-actor-io.js';

/** Done events of the spawned `toolCall` and `subRun` children (one per call). */
export type StepDoneEvent = {
  type: `xstate.done.actor.${string}`;
  output: ToolCallOutput | RunMachineOutput;
  actorId: string;
};

/** Error events of the spawned `toolCall` and `subRun` children. */
export type StepErrorEvent = {
  type: `xstate.error.actor.${string}`;
  error: unknown;
  actorId: string;
};
