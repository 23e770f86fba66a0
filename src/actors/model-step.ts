import { fromPromise } from 'xstate';
import { AgentStateError, serializeError } from '../errors/agentstate-error.js';
import { ModelError, OutputValidationError, UnpricedModelError } from '../errors/run-errors.js';
import type { Item } from '../items/item.js';
import type { ModelRequest, ModelResponse } from '../models/model.js';
import { outputTokenLimit, type ModelSettings } from '../models/model-settings.js';
import { costUsd, priceOf } from '../models/pricing.js';
import type { ModelStepInput, ModelStepOutput } from '../machines/run-types.js';
import { requestItems } from './request-items.js';
import { combinedSignal, stepDepsOf, type StepDeps, type StepDepsSource } from './step-deps.js';

async function callModel(
  deps: StepDeps,
  request: ModelRequest,
  runId: string,
  signal: AbortSignal,
): Promise<ModelResponse> {
  const progress = deps.progress;
  if (!progress) return deps.model.generate(request, { signal });
  for await (const event of deps.model.stream(request, { signal })) {
    if (event.type === 'text_delta') progress({ type: 'text_delta', runId, delta: event.delta });
    if (event.type === 'response') return event.response;
  }
  throw new Error('model stream ended without a response');
}

function parseStructured(
  deps: StepDeps,
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

/**
 * One model call, journaled: on a restore the journaled answer is replayed instead of calling
 * the model again. The answer's items (assistant text, tool calls) join the history.
 */
export function modelStep(source: StepDepsSource) {
  return fromPromise<ModelStepOutput, ModelStepInput>(async ({ input, signal, system }) => {
    const deps = stepDepsOf(source, system);
    const hit = await deps.log.find(input.runId, input.step);
    if (hit) return hit.output as ModelStepOutput;
    await deps.durable();
    const stepSignal = combinedSignal(deps, signal);
    stepSignal.throwIfAborted(); // cancelled while it waited: no model call
    const settings = input.modelSettings as ModelSettings | undefined;
    const maxOutputTokens = outputTokenLimit(settings?.maxOutputTokens, input.budgetLeft?.tokens);
    const request: ModelRequest = {
      instructions: deps.instructions(),
      items: await requestItems(deps, input.runId, stepSignal),
      tools: deps.toolSpecs,
      outputSchema: deps.outputSchema,
      model: deps.modelName(),
      ...(maxOutputTokens === undefined ? {} : { maxOutputTokens }),
      ...(settings ? { settings } : {}),
    };
    const name = request.model ?? deps.model.name;
    if (input.budgetLeft?.costUsd !== undefined && !priceOf(name, deps.prices, deps.model.price)) {
      throw UnpricedModelError.forModel(name, { sessionId: input.sessionId, runId: input.runId });
    }
    let response: ModelResponse;
    try {
      response = await callModel(deps, request, input.runId, stepSignal);
    } catch (error) {
      if (error instanceof AgentStateError) throw error;
      throw new ModelError(serializeError(error, 'MODEL_ERROR').message, {
        runId: input.runId,
        cause: error,
      });
    }
    const agent = deps.agentName;
    // A call without an id still needs its result matched to it: name it after its step.
    const toolCalls = response.toolCalls.map((c, i) =>
      c.callId ? c : { ...c, callId: `call_${input.runId}_${input.step + 1 + i}` },
    );
    const items: Item[] = (response.reasoning ?? []).map((r) => ({ ...r, agent }));
    if (response.text)
      items.push({ type: 'message', role: 'assistant', content: response.text, agent });
    items.push(...toolCalls.map((c) => ({ ...c, agent })));
    const output: ModelStepOutput = {
      text: response.text,
      toolCalls: toolCalls.map((c) => ({
        ...c,
        check: (deps.tools.get(c.name)?.needsApproval ?? false) !== false,
      })),
      historyEnd: deps.log.length + items.length,
      usage: {
        ...response.usage,
        costUsd: costUsd(response.model, response.usage, deps.prices, deps.model.price),
      },
      ...(toolCalls.length === 0 ? parseStructured(deps, response.text) : {}),
    };
    deps.log.record(
      { runId: input.runId, step: input.step, kind: 'model', output, at: deps.clock.now() },
      items,
    );
    return output;
  });
}
