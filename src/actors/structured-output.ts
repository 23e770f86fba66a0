import { OutputValidationError } from '../errors/run-errors.js';
import type { ModelStepOutput } from '../machines/step-actor-io.js';
import type { AgentDeps } from './agent-deps.js';

/**
 * The final answer's structured output, parsed and checked against the agent's `outputType`
 * (nothing without one): the value, or the `OutputValidationError` the run ends with.
 */
export function parseStructured(
  deps: AgentDeps,
  text: string | undefined,
): Pick<ModelStepOutput, 'structured' | 'outputError'> {
  if (!deps.outputType) return {};
  let json: unknown;
  try {
    json = JSON.parse(text ?? '');
  } catch {
    return {
      outputError: new OutputValidationError('The final output is not valid JSON').toJSON(),
    };
  }
  const parsed = deps.outputType.safeParse(json);
  if (parsed.success) return { structured: parsed.data };
  const issues = parsed.error.issues
    .map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`)
    .join('; ');
  return {
    outputError: new OutputValidationError(
      `The final output does not match outputType: ${issues}`,
    ).toJSON(),
  };
}
