import { z } from 'zod';
import { AgentStateError, causeText, type ErrorScope } from './agentstate-error.js';

/**
 * Plain-JSON record of one guardrail's verdict, as kept in the run's state and journal: its
 * schema (checked on every read of a stored run) and its type, derived from it.
 */
export const GuardrailResult = z.lazy(() =>
  z.object({
    name: z.string(),
    kind: z.enum(['input', 'output']),
    tripwire: z.boolean(),
    info: z.unknown().optional(),
  }),
);
export type GuardrailResult = z.output<typeof GuardrailResult>;

/**
 * A guardrail tripped: the run ended (`failed`) before its model call's answer or its final
 * output was used. `guardrail` is the tripped guardrail's result (name, kind, info); `state`
 * (a RunState) holds every guardrail result of the run.
 */
export class GuardrailTripwireError<TState = unknown> extends AgentStateError {
  readonly guardrail: GuardrailResult | undefined;
  readonly state: TState | undefined;
  constructor(
    message: string,
    guardrail?: GuardrailResult,
    state?: TState,
    scope: ErrorScope = {},
  ) {
    super('GUARDRAIL_TRIPWIRE', message, scope);
    this.guardrail = guardrail;
    this.state = state;
  }

  /** The message of a tripped guardrail's error. */
  static messageFor(result: Pick<GuardrailResult, 'name' | 'kind'>): string {
    return `The ${result.kind} guardrail "${result.name}" tripped`;
  }
}

/** A guardrail's `check` threw or returned something that is not a verdict. */
export class GuardrailError extends AgentStateError {
  constructor(name: string, cause: unknown, scope: ErrorScope = {}) {
    super('GUARDRAIL_FAILED', `Guardrail "${name}" failed: ${causeText(cause)}`, {
      ...scope,
      cause,
    });
  }
}
