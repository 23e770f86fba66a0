import { GuardrailTripwireError, type GuardrailResult } from '../errors/guardrail-errors.js';
import { evaluateGuardrails, guardrailInput } from '../guardrails/evaluate-guardrails.js';
import type { GuardrailCheckInput, GuardrailCheckOutput } from '../machines/guardrail-types.js';
import { journaledStep, type DepsOf, type JournaledStepDeps } from './journaled-step.js';
import type { SessionLog } from './session-log.js';
import { stepEntry } from './step-timing.js';

/** What a guardrail check uses (besides its input): what every journaled step uses. */
export type GuardrailCheckDeps = JournaledStepDeps;

/**
 * A run's input guardrails (the blocking ones: those marked `runInParallel` run with the first
 * model call) or output guardrails, evaluated once and journaled: a restored run replays the
 * journaled results instead of evaluating them again. A tripped guardrail fails the run.
 */
export function guardrailCheck(depsOf: DepsOf<GuardrailCheckDeps>) {
  return journaledStep<GuardrailCheckOutput, GuardrailCheckInput>(
    async ({ input, signal, system }) => {
      const deps = depsOf(system);
      const timing = deps.stepStarted(input.runId, input.step, {
        kind: 'guardrail',
        name: `${input.kind} guardrails`,
      });
      const hit = await deps.log.find(input.runId, input.step);
      if (hit) return hit.output as GuardrailCheckOutput;
      const turn = deps.recoveryTurn(input.runId, input.step, signal);
      if (turn) await turn;
      await deps.durable('guardrail');
      const agent = await deps.agentFor(input.path, input.agent);
      const context = deps.contextFor(input.runId);
      const scope = { runId: input.runId, sessionId: input.sessionId };
      const results =
        input.kind === 'input'
          ? await evaluateGuardrails(
              'input',
              (agent.inputGuardrails ?? []).filter((g) => g.runInParallel !== true),
              guardrailInput(inputItems(deps, input)),
              context,
              agent.redact,
              scope,
            )
          : await evaluateGuardrails(
              'output',
              agent.outputGuardrails ?? [],
              {
                text: input.output?.text,
                output: input.output?.structured ?? input.output?.text,
              },
              context,
              agent.redact,
              scope,
            );
      const output = guardrailOutput(results);
      deps.log.record(stepEntry(input, 'guardrail', output, deps.clock.now(), timing));
      return output;
    },
    depsOf,
  );
}

/** The results of a guardrail step, with the serialised tripwire of the first that tripped. */
export function guardrailOutput(results: GuardrailResult[]): GuardrailCheckOutput {
  const tripped = results.find((r) => r.tripwire);
  return {
    results,
    ...(tripped
      ? {
          tripwire: new GuardrailTripwireError(GuardrailTripwireError.messageFor(tripped)).toJSON(),
        }
      : {}),
  };
}

/** The run's input: a sub-agent's first message, or the session run's input items. */
export function inputItems(
  deps: { log: Pick<SessionLog, 'view'> },
  input: Pick<GuardrailCheckInput, 'path' | 'input' | 'historyStart' | 'inputCount'>,
) {
  if (input.path !== undefined && input.path.length > 1) {
    return [{ type: 'message' as const, role: 'user' as const, content: input.input ?? '' }];
  }
  const start = input.historyStart ?? 0;
  return deps.log.view(start).slice(0, input.inputCount ?? 0);
}
