import type { RunContext } from '../core/run-context.js';
import type { Item } from '../items/item.js';

/**
 * What a guardrail says: pass (`tripwire: false`) or stop the run (`tripwire: true`), with
 * optional `info` (plain JSON, stored with the run's guardrail results and redacted like
 * everything stored).
 */
export interface GuardrailVerdict {
  tripwire: boolean;
  info?: unknown;
}

/** What an input guardrail checks: the run's input items and their text, joined. */
export interface GuardrailInput {
  items: Item[];
  text: string;
}

/** What an output guardrail checks: the final answer's text and its parsed output. */
export interface GuardrailOutput {
  text: string | undefined;
  /** The structured output when the agent has an `outputType`, else the text. */
  output: unknown;
}

/**
 * Checks a run's input before its first model call. With `runInParallel` it runs alongside
 * that call instead: a tripwire then discards the call's answer (nothing joins the history).
 * `getRunContext()` inside `check` returns the run's context (a sub-agent's, in a sub-agent).
 * @example
 * const noSecrets: InputGuardrail = {
 *   name: 'no_secrets',
 *   check: ({ text }) => ({ tripwire: /password/i.test(text), info: { rule: 'password' } }),
 * };
 */
export interface InputGuardrail {
  name: string;
  /** @default false */
  runInParallel?: boolean | undefined;
  check(input: GuardrailInput, context: RunContext): GuardrailVerdict | Promise<GuardrailVerdict>;
}

/** Checks a run's final output before the run completes. */
export interface OutputGuardrail {
  name: string;
  check(output: GuardrailOutput, context: RunContext): GuardrailVerdict | Promise<GuardrailVerdict>;
}

export type AnyGuardrail = InputGuardrail | OutputGuardrail;
