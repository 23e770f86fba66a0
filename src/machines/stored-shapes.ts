import type { z } from 'zod';
import type { SameShape, Tied } from '../validation/same-shape.js';
import type { SerializedError } from '../errors/agentstate-error.js';
import type { GuardrailCheckInput } from './guardrail-types.js';
import type { CallState, RunMachineContext, RunMachineInput } from './run-types.js';
import type { RunUsage } from './run-usage.js';
import type { SubRunSummary } from './sub-run-types.js';
import type * as Run from './schemas/run-schemas.js';
import type * as Snapshot from './schemas/persisted-snapshot-schema.js';
import type * as Steps from './schemas/step-output-by-kind.js';
import type { RunSummary, SessionConfig, SessionMachineContext } from './session-types.js';
import type {
  ApprovalCheckInput,
  ApprovalCheckOutput,
  DurableTimerInput,
  ModelRequestFacts,
  ModelStepInput,
  ModelStepOutput,
  ToolCallInput,
  ToolCallOutput,
} from './step-actor-io.js';

/**
 * What is stored, defined once. Each stored shape is either a type derived from its zod schema
 * (`z.output`: `UsageTotals`, `Budget`, `RunBudget`, `StandingDecision`, `StepStart`,
 * `TraceCarrier`, `SubRunSpec`, `SubRunResult`, `AnsweredMessage`, `GuardrailCheckOutput`,
 * `GuardrailResult`, the items and the in-doubt records), or a type the code and the docs read
 * by name, tied here to the schema that checks it on read: the compiler fails on this file when
 * a field is added, removed, made optional or retyped on one side only (`SameShape`). The types
 * tied rather than derived: `SerializedError` (documented in `errors/` beside the errors that
 * make it), those holding a `RunUsage` (its `costUsd` key is always present in memory, possibly
 * `undefined`, where the stored JSON leaves it out), and the machines' documented interfaces.
 * The store's records are tied the same way beside their schemas (`StoredRecordShapes`,
 * `persistence/session-schemas.ts`).
 */
export type StoredShapes = [
  // errors/ (below the schemas)
  Tied<SameShape<SerializedError, z.output<typeof Run.SerializedError>>>,
  // the run machine's state
  Tied<SameShape<RunUsage, z.output<typeof Run.RunUsage>>>,
  Tied<SameShape<RunMachineInput, z.output<typeof Run.RunInput>>>,
  Tied<SameShape<CallState, z.output<typeof Run.CallState>>>,
  Tied<SameShape<RunMachineContext, z.output<typeof Run.RunContext>>>,
  Tied<SameShape<RunSummary, z.output<typeof Run.RunSummary>>>,
  Tied<SameShape<SubRunSummary, z.output<typeof Run.SubRunSummary>>>,
  // the session machine's state
  Tied<SameShape<SessionConfig, z.output<typeof Snapshot.SessionConfig>>>,
  Tied<SameShape<SessionMachineContext, z.output<typeof Snapshot.SessionContext>>>,
  // journaled step outputs (a tool call's `ask` is never journaled: the run pauses on it)
  Tied<SameShape<ModelRequestFacts, z.output<typeof Steps.ModelRequestFacts>>>,
  Tied<SameShape<ModelStepOutput, z.output<typeof Steps.ModelStepOutput>>>,
  Tied<SameShape<Omit<ToolCallOutput, 'ask'>, z.output<typeof Steps.ToolCallOutput>>>,
  Tied<SameShape<ApprovalCheckOutput, z.output<typeof Steps.ApprovalCheckOutput>>>,
  // step inputs in a snapshot: the snapshot check reads only some fields of each, those tied
  Tied<SameShape<Checked<ModelStepInput, 'modelStep'>, StepInput<'modelStep'>>>,
  Tied<SameShape<Checked<ApprovalCheckInput, 'approvalCheck'>, StepInput<'approvalCheck'>>>,
  Tied<SameShape<Checked<ToolCallInput, 'toolCall'>, StepInput<'toolCall'>>>,
  Tied<SameShape<Checked<DurableTimerInput, 'durableTimer'>, StepInput<'durableTimer'>>>,
  Tied<SameShape<Checked<GuardrailCheckInput, 'guardrailCheck'>, StepInput<'guardrailCheck'>>>,
];

/** The input of a run's step child `S` as the snapshot check reads it. */
type StepInput<S extends Snapshot.StepChild['src']> = Extract<
  Snapshot.StepChild,
  { src: S }
>['snapshot']['input'];

/** The fields of a step's input type `T` that the snapshot check reads. */
type Checked<T, S extends Snapshot.StepChild['src']> = Pick<T, keyof StepInput<S> & keyof T>;
