import { AgentStateError, serializeError } from '../errors/agentstate-error.js';
import { ModelError, SubAgentDepthError, UnpricedModelError } from '../errors/run-errors.js';
import type { Item } from '../items/item.js';
import {
  providerOf,
  type ModelCallOptions,
  type ModelRequest,
  type ModelResponse,
} from '../models/model.js';
import { outputTokenLimit, type ModelSettings } from '../models/model-settings.js';
import { costUsd, priceOf } from '../models/pricing.js';
import type { ModelStepInput, ModelStepOutput } from '../machines/step-actor-io.js';
import type { SubRunSpec } from '../machines/sub-run-types.js';
import { isSubRun } from '../machines/agent-path.js';
import { requestItems } from './request-items.js';
import { callWithGuardrails } from './parallel-guardrails.js';
import { recordTripwire } from './guardrail-tripwire.js';
import { hasBlockingInputGuardrails } from '../guardrails/evaluate-guardrails.js';
import { parseToolArguments } from '../tools/invoke-tool.js';
import type { AnyTool } from '../tools/tool.js';
import type { PermissionPolicy } from '../core/permission-policy.js';
import type { SessionObserver } from '../telemetry/session-observer.js';
import type { AgentDeps } from './agent-deps.js';
import { subAgentDefinitions } from './sub-agent-definitions.js';
import { hasPermissions } from './call-permissions.js';
import {
  combinedSignal,
  type CancellableStepDeps,
  type DepsOf,
  type JournaledStepDeps,
  journaledStep,
} from './journaled-step.js';
import type { RequestItemsDeps } from './request-items.js';
import type { StepProgress } from './step-progress.js';
import { requestFacts } from './request-facts.js';
import { stepEntry } from './step-timing.js';
import { parseStructured } from './structured-output.js';
import type { RuntimeMemory } from '../memory/runtime-memory.js';
import { redactedFacts, withEmbeddingCost, withMemory } from '../memory/request-memory.js';
import type { RunUsage } from '../machines/run-usage.js';

/** What a model step uses (besides its input): wired in session-host/run-wiring.ts. */
export interface ModelStepDeps extends JournaledStepDeps, CancellableStepDeps, RequestItemsDeps {
  /** How deep sub-agent runs may nest (a child of the session's run is 1 deep). */
  maxSubAgentDepth: number;
  /** A new ULID, for a sub-agent call's child run. */
  newRunId(): string;
  /**
   * The permission policies of every call in the session (the runtime's, then the session
   * agent's): with any, every call of the answer is checked.
   */
  sessionPermissions: readonly PermissionPolicy[];
  /** Where a session run's input items are in the history (for its parallel input guardrails). */
  inputOf(runId: string): { historyStart: number; inputCount: number } | undefined;
  /** Set while streaming: receives text deltas; the model is then streamed. */
  progress?: ((event: StepProgress) => void) | undefined;
  /** The session's telemetry: a `chat` span and metrics per model call. */
  observer?: Pick<SessionObserver, 'chat'> | undefined;
  /**
   * Adds the messages steered into the session's run (`whileBusy: 'steer'`) to the history
   * before its model call; they leave the inbox with the save that writes them. `undefined`
   * when there is nothing to read (no promise).
   */
  steer?: (() => Promise<void> | undefined) | undefined;
  /** The session agent's memory across sessions: working memory and recall (see `withMemory`). */
  memory?: RuntimeMemory | undefined;
}

async function callModel(
  deps: ModelStepDeps,
  agent: AgentDeps,
  request: ModelRequest,
  input: ModelStepInput,
  signal: AbortSignal,
  trace: ModelCallOptions['trace'],
): Promise<ModelResponse> {
  const progress = deps.progress;
  const options: ModelCallOptions = {
    signal,
    context: deps.contextFor(input.runId),
    ...(trace ? { trace } : {}),
  };
  if (!progress) return agent.model.generate(request, options);
  const { runId, path } = input;
  const tag = isSubRun(path) ? { agentPath: path } : {};
  let said = '';
  try {
    for await (const event of agent.model.stream(request, options)) {
      // A model that goes on after its run was cancelled is not heard: nothing more streams.
      signal.throwIfAborted();
      if (event.type === 'text_delta') {
        said += event.delta;
        progress({ type: 'text_delta', runId, delta: event.delta, ...tag });
      }
      if (event.type === 'response') return event.response;
    }
  } catch (error) {
    // What arrived before the stream died is kept with the error the run stores (redacted).
    const typed = error instanceof AgentStateError && !(error instanceof ModelError);
    if (!said || signal.aborted || typed) throw error;
    const partialText = agent.redact ? agent.redact(said) : said;
    throw ModelError.cutShort(error, partialText, { runId });
  }
  throw new Error('model stream ended without a response');
}

/**
 * One model call, journaled: on a restore the journaled answer is replayed instead of calling
 * the model again. The session's own run reads the session history and adds the answer's
 * items (assistant text, tool calls) to it; a sub-agent run reads its own conversation (its
 * input and journaled steps, see `SessionLog.runItems`), which stays out of the history.
 */
export function modelStep(depsOf: DepsOf<ModelStepDeps>) {
  return journaledStep<ModelStepOutput, ModelStepInput>(async ({ input, signal, system }) => {
    const deps = depsOf(system);
    const timing = deps.stepStarted(input.runId, input.step, { kind: 'model' });
    // What the log knows is not awaited (an await of a value costs two promises); the step
    // yields at `agentFor` (a promise) before its durability barrier all the same.
    const journaled = deps.log.find(input.runId, input.step);
    const hit = journaled instanceof Promise ? await journaled : journaled;
    if (hit) return hit.output as ModelStepOutput;
    const sub = isSubRun(input.path);
    const scope = { sessionId: input.sessionId, runId: input.runId };
    if (sub && input.path!.length - 1 > deps.maxSubAgentDepth) {
      throw new SubAgentDepthError(input.path!, deps.maxSubAgentDepth, scope);
    }
    const agent = await deps.agentFor(input.path, input.agent);
    const conversation = sub
      ? [
          { type: 'message' as const, role: 'user' as const, content: input.input ?? '' },
          ...(await deps.log.runItems(input.runId)),
        ]
      : undefined;
    const turn = deps.recoveryTurn(input.runId, input.step, signal);
    if (turn) await turn;
    const steered = sub ? undefined : deps.steer?.();
    if (steered) await steered;
    await deps.durable('model');
    const stepSignal = combinedSignal(deps, signal);
    stepSignal.throwIfAborted(); // cancelled while it waited: no model call
    const settings = (input.modelSettings as ModelSettings | undefined) ?? agent.modelSettings;
    const maxOutputTokens = outputTokenLimit(settings?.maxOutputTokens, input.budgetLeft?.tokens);
    const sent = conversation ? undefined : await requestItems(deps, input.runId, stepSignal);
    // Memory is the session's own agent's: a sub-agent's run and a handed-off agent have none.
    const memory = sent && input.agent === undefined ? deps.memory : undefined;
    const remembered = memory
      ? await withMemory(memory, {
          context: deps.contextFor(input.runId),
          sessionId: input.sessionId,
          instructions: agent.instructions(),
          items: sent!.items,
          history: deps.log,
          from: deps.historyFrom(),
          now: deps.clock.now(),
          signal: stepSignal,
        })
      : undefined;
    const request: ModelRequest = {
      instructions: remembered ? remembered.instructions : agent.instructions(),
      items: conversation ?? remembered?.items ?? sent!.items,
      tools: agent.toolSpecs,
      outputSchema: agent.outputSchema,
      model: agent.modelName(),
      ...(maxOutputTokens === undefined ? {} : { maxOutputTokens }),
      ...(settings ? { settings } : {}),
    };
    const name = request.model ?? agent.model.name;
    if (
      input.budgetLeft?.costUsd !== undefined &&
      !priceOf(name, agent.prices, agent.model.price)
    ) {
      throw UnpricedModelError.forModel(name, scope);
    }
    // A provider's own figure (a remote agent's reported cost) wins over pricing its tokens.
    const costOf = (r: Pick<ModelResponse, 'model' | 'usage' | 'costUsd'>) =>
      r.costUsd ?? costUsd(r.model, r.usage, agent.prices, agent.model.price);
    const chat = { provider: providerOf(agent.model), model: name, items: request.items, costOf };
    // Callbacks, not nested async functions: nothing but the model call waits while it answers.
    const guarded = await callWithGuardrails(deps, agent, input, stepSignal, (signal) => {
      const call = (trace?: ModelCallOptions['trace']) =>
        callModel(deps, agent, request, input, signal, trace);
      const answer = deps.observer ? deps.observer.chat(input.runId, chat, call) : call();
      return answer.catch((error: unknown) => {
        if (error instanceof AgentStateError) throw error;
        throw new ModelError(serializeError(error, 'MODEL_ERROR').message, {
          runId: input.runId,
          cause: error,
        });
      });
    });
    const tripped = guarded.guardrails?.find((g) => g.tripwire);
    if (tripped || !guarded.response) {
      // A parallel input guardrail tripped: the answer (if any) is discarded, its usage kept.
      return recordTripwire(deps, input, guarded, costOf);
    }
    const response = guarded.response;
    const withEmbedding = (usage: RunUsage): RunUsage =>
      memory && remembered
        ? withEmbeddingCost(memory, input.runId, usage, remembered.facts)
        : usage;
    const agentName = agent.agentName;
    // A call without an id still needs its result matched to it: name it after its step.
    const toolCalls = response.toolCalls.map((c, i) =>
      c.callId ? c : { ...c, callId: `call_${input.runId}_${input.step + 1 + i}` },
    );
    const items: Item[] = (response.reasoning ?? []).map((r) => ({ ...r, agent: agentName }));
    if (response.text) {
      items.push({ type: 'message', role: 'assistant', content: response.text, agent: agentName });
    }
    items.push(...toolCalls.map((c) => ({ ...c, agent: agentName })));
    const found = subAgentDefinitions(deps, agent, input.path, toolCalls);
    const definitions = found instanceof Map ? found : await found;
    const output: ModelStepOutput = {
      text: response.text,
      toolCalls: toolCalls.map((c) => {
        const t = agent.tools.get(c.name);
        const subRun = t
          ? subRunOf(deps, t, c.arguments, input.runId, definitions.get(c.name))
          : undefined;
        return {
          ...c,
          check:
            (t?.needsApproval ?? false) !== false || hasPermissions(deps.sessionPermissions, agent),
          ...(subRun ? { subRun } : {}),
          ...(t?.handoff ? { handoff: t.handoff.agent.name } : {}),
        };
      }),
      ...(sub ? {} : { historyEnd: deps.log.length + items.length }),
      usage: withEmbedding({
        ...response.usage,
        costUsd: costOf(response),
      }),
      ...(toolCalls.length === 0 ? parseStructured(agent, response.text) : {}),
      ...(guarded.guardrails ? { guardrails: guarded.guardrails } : {}),
      ...(toolCalls.length === 0 && agent.outputGuardrails?.length
        ? { outputGuardrails: true }
        : {}),
      request: {
        ...requestFacts(
          agent.agentName,
          request,
          sent?.range,
          sent ? deps.historyFrom() : 0,
          agent.redact,
        ),
        ...(remembered ? { memory: redactedFacts(remembered.facts, agent.redact) } : {}),
      },
    };
    deps.log.record(stepEntry(input, 'model', output, deps.clock.now(), timing), sub ? [] : items);
    return output;
  }, depsOf);
}

/**
 * The child run a call of a sub-agent tool starts, fixed here (and journaled with the answer)
 * so a replay starts the same one; none for a call whose arguments are invalid (the tool step
 * then answers the model with the problem).
 */
function subRunOf(
  deps: ModelStepDeps,
  t: AnyTool,
  rawArgs: string,
  parentRunId: string,
  definition: Readonly<Record<string, string>> | undefined,
): SubRunSpec | undefined {
  const ref = t.subAgent;
  if (!ref) return undefined;
  const parsed = parseToolArguments(t, rawArgs);
  if (!parsed.ok) return undefined;
  const metadata = ref.metadata(parsed.args, deps.contextFor(parentRunId));
  const runId = deps.newRunId();
  deps.log.knowRun(runId); // a new id: none of its steps can be in the store's journal
  return {
    name: ref.agent.name,
    runId,
    input: ref.inputText(parsed.args),
    maxTurns: ref.maxTurns,
    startedAt: deps.clock.now(),
    ...(metadata ? { metadata } : {}),
    ...(ref.userId === undefined ? {} : { userId: ref.userId }),
    ...(ref.sessionId === undefined ? {} : { sessionId: ref.sessionId }),
    ...(ref.failParent ? { failParent: true } : {}),
    ...(hasBlockingInputGuardrails((ref.agent as { options?: unknown }).options)
      ? { inputGuardrails: true }
      : {}),
    ...(definition ? { definition: { ...definition } } : {}),
  };
}
