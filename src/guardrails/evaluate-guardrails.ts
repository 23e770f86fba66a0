import type { RunContext } from '../core/run-context.js';
import { withRunContext } from '../core/run-context-storage.js';
import { GuardrailError, type GuardrailResult } from '../errors/guardrail-errors.js';
import { redactDeep, type Redact } from '../errors/redact-deep.js';
import { contentText } from '../items/item.js';
import { isPlainJson, jsonCopy } from '../validation/plain-json.js';
import type { AnyGuardrail, GuardrailInput, GuardrailOutput, InputGuardrail } from './guardrail.js';

type Checked<K extends GuardrailResult['kind']> = K extends 'input'
  ? GuardrailInput
  : GuardrailOutput;

/**
 * Runs guardrails of one kind side by side, each inside the run's context, and returns their
 * results in the guardrails' order. A `check` that throws, or returns something other than a
 * verdict with plain-JSON `info`, is a `GuardrailError`. `info` is redacted (secrets never
 * reach the journal).
 */
export async function evaluateGuardrails<K extends GuardrailResult['kind']>(
  kind: K,
  guardrails: readonly AnyGuardrail[],
  checked: Checked<K>,
  context: RunContext,
  redact: Redact | undefined,
  scope: { runId: string; sessionId?: string | undefined },
): Promise<GuardrailResult[]> {
  return Promise.all(
    guardrails.map(async (g) => {
      let verdict: unknown;
      try {
        verdict = await withRunContext(context, () =>
          (g.check as (v: Checked<K>, c: RunContext) => unknown)(checked, context),
        );
      } catch (error) {
        throw new GuardrailError(g.name, error, scope);
      }
      const v = verdict as { tripwire?: unknown; info?: unknown } | null;
      if (typeof v !== 'object' || v === null || typeof v.tripwire !== 'boolean') {
        throw new GuardrailError(g.name, new TypeError('check() must return { tripwire, info? }'));
      }
      if (v.info !== undefined && !isPlainJson(v.info)) {
        throw new GuardrailError(g.name, new TypeError('the verdict info must be plain JSON'));
      }
      const info = v.info === undefined ? undefined : jsonCopy(v.info);
      return {
        name: g.name,
        kind,
        tripwire: v.tripwire,
        ...(info === undefined ? {} : { info: redact ? redactDeep(info, redact) : info }),
      };
    }),
  );
}

/** The input a run's input guardrails check: its input items and their text. */
export function guardrailInput(items: GuardrailInput['items']): GuardrailInput {
  const text = items
    .flatMap((item) => (item.type === 'message' ? [contentText(item.content)] : []))
    .join('\n');
  return { items, text };
}

/**
 * Whether an agent's options (`{ inputGuardrails }`) list input guardrails that run before
 * the first model call (not `runInParallel`): its runs then start with a guardrail step.
 */
export function hasBlockingInputGuardrails(options: unknown): boolean {
  const list = (options as { inputGuardrails?: readonly InputGuardrail[] } | undefined)
    ?.inputGuardrails;
  return list?.some((g) => g.runInParallel !== true) === true;
}
