/* eslint-disable max-lines -- Long on purpose: every option of an agent, documented in one
   interface where app authors read them, with its check. */
import { MemoryUnsupportedError } from '../errors/memory-errors.js';
import { hasMemory } from '../persistence/store-supports.js';
import { checkMemoryOptions, type MemoryOptions } from '../memory/memory-options.js';
import type { BindingSource } from './agent-binding.js';
import type { SnapshotMigration } from '../runs/machine-upgrade.js';
import type { z } from 'zod';
import type { RunContext } from '../core/run-context.js';
import type { Budget } from '../machines/session-types.js';
import type { Model } from '../models/model.js';
import {
  checkModelSettings,
  checkToolChoice,
  type ModelSettings,
} from '../models/model-settings.js';
import type { PriceTable } from '../models/pricing.js';
import type { SessionStore } from '../persistence/session-store.js';
import type { InputGuardrail, OutputGuardrail } from '../guardrails/guardrail.js';
import type { Logger } from '../telemetry/logger.js';
import { checkTelemetryOptions, type TelemetryOptions } from '../telemetry/telemetry-options.js';
import type { ToolErrorHook } from '../tools/guard-tool.js';
import type { RecoveryOptions } from './recovery-options.js';
import type { AnyTool } from '../tools/tool.js';
import type { Toolkit } from '../tools/toolkit.js';
import {
  OptionChecker,
  hasMethods,
  isNonEmptyString,
  isObject,
  optionNames,
} from '../validation/option-checks.js';
import type { Clock } from '../core/clock.js';
import { INSPECT_EXPECTED, isInspectOption, type InspectOption } from './inspection.js';
import type { LeaseSettings } from '../runs/run-lease.js';
import { DURABILITY_EXPECTED, isDurability, type Durability } from '../core/durability-policy.js';
import { WHILE_BUSY_EXPECTED, isWhileBusy, type WhileBusy } from '../core/busy-policy.js';
import { isPermissionPolicy, type PermissionPolicy } from '../core/permission-policy.js';
import { SESSION_STORE_METHODS, checkStoreOption } from '../persistence/store-supports.js';
import { checkHistoryStrategy, type HistoryStrategy } from '../context-window/history-strategy.js';
import type { DefinitionChange } from './definition-fingerprint.js';

/** The blueprint of an agent. Holds no per-request state; safe to share across users. */
/** An agent as a handoff target (an `Agent`). */
export type HandoffAgent = BindingSource & { readonly name: string };

export interface AgentOptions<TOutput = string> extends RecoveryOptions {
  name: string;
  /** A string, or a function of the run's context (resolved once per session binding). */
  instructions?: string | ((context: RunContext) => string | Promise<string>) | undefined;
  model: Model;
  /**
   * Settings of every model call of the agent's runs (temperature, toolChoice, ...); a run's
   * own `modelSettings` override them key by key.
   * @example { temperature: 0, maxOutputTokens: 1000, parallelToolCalls: false }
   */
  modelSettings?: ModelSettings | undefined;
  tools?: AnyTool[] | undefined;
  /** Factories of per-session tools, created once per binding and closed with it. */
  toolkits?: Toolkit[] | undefined;
  /** @default 10 */
  maxTurns?: number | undefined;
  /** When set, the final answer must be JSON matching it; `result.output` is the parsed value. */
  outputType?: z.ZodType<TOutput> | undefined;
  /**
   * Where sessions live. Runs with a `sessionId` and no store use a LevelDB folder
   * (`./.agentstate`); runs with neither stay in memory.
   */
  store?: SessionStore | undefined;
  /** @default the system clock */
  clock?: Clock | undefined;
  /**
   * The price table for cost accounting: replaces the default one, so extend it with
   * `withPrices({ 'my-model': { inputPerMillion, outputPerMillion } })`. A model found neither
   * here nor in its own `price` reports `costUsd: undefined`, warns once per agent, and a
   * `maxCostUsd` budget on it raises `UnpricedModelError` before the call.
   * @default defaultPrices
   */
  prices?: PriceTable | undefined;
  /**
   * Scrubs the app's own secrets from text before it is stored or shown to the model: the
   * errors of failed model calls (message, cause chain, nested fields) and of tools (the tool
   * error item the model reads), and the instructions each model step journals with its
   * request (the model itself gets them whole). The OpenAI adapter already removes its API key.
   * @example redact: (text) => text.replaceAll(process.env.DB_PASSWORD!, '[REDACTED]')
   */
  redact?: ((text: string) => string) | undefined;
  /**
   * Receives the full, unredacted error of a tool that threw (or whose `needsApproval` threw),
   * e.g. for the app's logs; the model sees the redacted message. Errors it throws are ignored.
   */
  onToolError?: ToolErrorHook | undefined;
  /**
   * Agents this one may hand the rest of a run to: the model gets a `transfer_to_<name>` tool
   * for each, and once it calls one, that agent answers (same conversation, its own
   * instructions, model and tools). `RunResult.lastAgent` says which agent answered.
   */
  handoffs?: readonly HandoffAgent[] | undefined;
  /**
   * How deep sub-agent runs may nest under this agent's runs (a sub-agent of this agent is 1
   * deep); a deeper call fails that sub-agent with `SubAgentDepthError`.
   * @default 5
   */
  maxSubAgentDepth?: number | undefined;
  /** Pending approvals are rejected with reason `timeout` after this many ms. */
  approvalTimeoutMs?: number | undefined;
  /**
   * Decides before every tool call of this agent's runs (its sub-agents' included) whether it
   * may run: allow, ask (an approval interruption) or deny with a reason (see
   * `PermissionPolicy`). Composes with the runtime's policy and a sub-agent's own: the
   * strictest decision wins.
   */
  permissions?: PermissionPolicy | undefined;
  /**
   * The context window: which part of the session's history each model request carries.
   * `'all'`, the newest `{ lastItems }`, or a token budget `{ maxTokens, countTokens?,
   * summarize?, keepTokens? }`. The stored history stays whole whatever the window.
   * @default 'all'
   * @example { maxTokens: 8000 }
   */
  history?: HistoryStrategy | undefined;
  /**
   * What the agent remembers of its user across sessions: a working-memory document it sees in
   * every run and updates through a tool, and recall of similar memories from the user's other
   * sessions before each model call (see `MemoryOptions`). Needs a store that keeps memory.
   * @example { embedder: openaiEmbedder({ model: 'text-embedding-3-small' }) }
   */
  memory?: MemoryOptions | undefined;
  /** Limits on each user's totals across all their sessions. */
  userBudget?: Budget | undefined;
  /**
   * Upgrades of stored run snapshots written by older machine versions (see
   * `SnapshotMigration`). Sessions without a run restore under a new version without one.
   */
  snapshotMigrations?: readonly SnapshotMigration[] | undefined;
  /**
   * Session leases, used when the store keeps them (all shipped stores do): one process runs
   * a session's steps at a time, and a crashed owner's run can be resumed once its lease
   * expires (`runtime.recover`). `false`: take none (one process only; no renewal timers).
   * @example { ttlMs: 15_000 }
   */
  lease?: LeaseSettings | false | undefined;
  /**
   * How many recently used sessions each runtime of the agent (one per store) keeps loaded:
   * the next action on one hands its record back to the store, which checks that it still
   * holds exactly that value (another writer's change is read as usual); new history is read.
   * @default 1000
   */
  cachedSessions?: number | undefined;
  /** Of those, how many keep their session actor live at rest (`0`: none). @default `cachedSessions` */
  liveSessions?: number | undefined;
  /**
   * An XState inspection observer of the agent's actors: each session actor, its run, each
   * step and each sub-agent run, restored ones too (e.g. `@statelyai/inspect`'s
   * `createWebSocketInspector().inspect`). A `SessionRuntime` takes it too (its own, else its
   * agent's); `runtime.on('Inspection', ...)` adds listeners that also get the session key.
   * @example inspect: (event) => { if (event.type === '@xstate.snapshot') log(event) }
   */
  inspect?: InspectOption | undefined;
  /**
   * Checks of the run's input before its first model call (or alongside it, `runInParallel`);
   * a tripwire ends the run with `GuardrailTripwireError`. Each result is journaled and kept
   * in the RunState; a resumed run never evaluates one again.
   */
  inputGuardrails?: readonly InputGuardrail[] | undefined;
  /** Checks of the run's final output before the run completes (see `inputGuardrails`). */
  outputGuardrails?: readonly OutputGuardrail[] | undefined;
  /**
   * OpenTelemetry spans and metrics (GenAI semantic conventions). Default: the global
   * providers, a no-op until the app registers an SDK; `false` turns them off.
   */
  telemetry?: TelemetryOptions | false | undefined;
  /**
   * Structured log lines (run start and end, restore, conflict, retry, restart, deadline), to
   * any object with `debug/info/warn/error(fields, message)`, e.g. pino. Default: none, or
   * JSON lines on stderr when `AGENTSTATE_LOG=debug` (or `info`, `warn`, `error`).
   */
  logger?: Logger | undefined;
  /**
   * When a run's changes reach the store, i.e. what a process killed mid-run (SIGKILL, power
   * loss) makes run again when the run is resumed. Whatever the mode, a run that is not killed
   * ends with the same state, history, journal, audit entries and totals, every save is one
   * atomic, versioned batch, and telemetry, logger and inspection see every step.
   * - `'step'`: each step (model call, tool call, check) is saved before the next starts; only
   *   the step in flight at the kill runs again.
   * - `'tools'`: saved before each tool call starts and as soon as it returns, and at the run's
   *   pauses and end; a model call since the last tool boundary may run again, a tool call
   *   that returned never does.
   * - `'run'`: saved only at the run's pauses (approvals, interruptions, deadline waits) and at
   *   its end; the run goes on from its last pause, tools included (each reads its call id as
   *   an idempotency key), and a run killed before any pause was never stored: the caller
   *   sends its message again. The fewest writes.
   * A `SessionRuntime`'s `durability` and a call's (`agent.run(input, { durability })`) win over
   * this one, the call's first. Sub-agent runs follow their parent's.
   * @default 'step'
   * @example durability: 'tools'
   */
  durability?: Durability | undefined;
  /**
   * The version of this agent's definition, kept in each run's fingerprint in place of its
   * instructions: pins instructions given as a function (whose text the fingerprint does not
   * read), or says on purpose which edits count. See `compatibleWith`.
   * @example version: 'refunds-2026-11'
   */
  version?: string | undefined;
  /**
   * Whether a paused or crashed run that started under another definition of this agent (its
   * fingerprint lists what changed: instructions or `version`, a tool's parameters, a tool
   * added or removed, the output schema, the model or its settings, the machines) may go on
   * with this one. Without it, or when it returns false, resuming such a run raises
   * `DefinitionChangedError` and changes nothing. Asked at every resume; the run keeps the
   * fingerprint it started with. A new message after a run ended starts a new run: never asked.
   * @example compatibleWith: ({ changes }) => changes.every((c) => c.part === 'instructions')
   */
  compatibleWith?: ((change: DefinitionChange) => boolean) | undefined;
  /**
   * What a message does when this process is executing its session's run: `'reject'` raises
   * `RunInProgressError`, `'queue'` waits for the run to end and then starts the next one (in
   * the order sent), `'interrupt'` cancels the running run and starts its own. A call's
   * `whileBusy` (`agent.run(input, { whileBusy })`) wins over this one.
   * @default 'reject'
   * @example whileBusy: 'queue'
   */
  whileBusy?: WhileBusy | undefined;
}

const AGENT_OPTION_NAMES = optionNames<AgentOptions>({
  name: true,
  instructions: true,
  model: true,
  modelSettings: true,
  tools: true,
  toolkits: true,
  maxTurns: true,
  outputType: true,
  store: true,
  clock: true,
  prices: true,
  approvalTimeoutMs: true,
  permissions: true,
  maxSubAgentDepth: true,
  handoffs: true,
  history: true,
  memory: true,
  userBudget: true,
  redact: true,
  onToolError: true,
  snapshotMigrations: true,
  lease: true,
  cachedSessions: true,
  liveSessions: true,
  inspect: true,
  inputGuardrails: true,
  outputGuardrails: true,
  telemetry: true,
  logger: true,
  durability: true,
  version: true,
  compatibleWith: true,
  maxRecoveries: true,
  onRecoveryExhausted: true,
  whileBusy: true,
});

const LEASE_NAMES = optionNames<LeaseSettings>({ owner: true, ttlMs: true });

const isTool = (t: unknown): boolean =>
  isObject(t) && isNonEmptyString(t['name']) && typeof t['execute'] === 'function';
const isGuardrails = (v: unknown): boolean =>
  Array.isArray(v) &&
  v.every((g) => isObject(g) && isNonEmptyString(g['name']) && typeof g['check'] === 'function');
const isToolkit = (t: unknown): boolean =>
  isObject(t) && isNonEmptyString(t['name']) && typeof t['create'] === 'function';

/** Checks `new Agent(options)`; throws a `TypeError` naming the option at the first mistake. */
export function checkAgentOptions(options: unknown): void {
  const lease = isObject(options) ? options['lease'] : undefined;
  if (lease !== undefined && lease !== false) {
    new OptionChecker('new Agent()', lease, LEASE_NAMES, 'lease')
      .nonEmptyString('owner')
      .positiveInteger('ttlMs');
  }
  new OptionChecker('new Agent()', options ?? null, AGENT_OPTION_NAMES)
    .nonEmptyString('name', true)
    .check('instructions', 'a string or a function', (v) =>
      ['string', 'function'].includes(typeof v),
    )
    .implements('model', 'Model', ['generate', 'stream'], true)
    .check('tools', 'an array of tools made by tool()', (v) => Array.isArray(v) && v.every(isTool))
    .check(
      'toolkits',
      'an array of toolkits made by toolkit()',
      (v) => Array.isArray(v) && v.every(isToolkit),
    )
    .positiveInteger('maxTurns')
    .check('outputType', 'a zod schema', (v) => hasMethods(v, ['safeParse']))
    .implements('store', 'SessionStore', SESSION_STORE_METHODS)
    .implements('clock', 'Clock', ['now', 'sleepUntil'])
    .object('prices')
    .positiveInteger('approvalTimeoutMs')
    .check('permissions', 'a policy with a check(call, scope) function', isPermissionPolicy)
    .positiveInteger('maxSubAgentDepth')
    .positiveInteger('cachedSessions')
    .nonNegativeInteger('liveSessions')
    .check(
      'handoffs',
      'an array of agents',
      (v) =>
        Array.isArray(v) &&
        v.every((a) => isObject(a) && typeof a['bind'] === 'function' && isObject(a['options'])),
    )
    .budget('userBudget')
    .check(
      'inputGuardrails',
      'an array of { name, check, runInParallel? } guardrails',
      isGuardrails,
    )
    .check('outputGuardrails', 'an array of { name, check } guardrails', isGuardrails)
    .check('telemetry', 'an object or false', (v) => v === false || isObject(v))
    .implements('logger', 'Logger', ['debug', 'info', 'warn', 'error'])
    .check('inspect', INSPECT_EXPECTED, isInspectOption)
    .check('lease', 'an object or false', (v) => v === false || isObject(v))
    .check('durability', DURABILITY_EXPECTED, isDurability)
    .check('whileBusy', WHILE_BUSY_EXPECTED, isWhileBusy)
    .nonEmptyString('version')
    .function('compatibleWith')
    .nonNegativeInteger('maxRecoveries')
    .function('onRecoveryExhausted')
    .check(
      'snapshotMigrations',
      'an array of { from, migrate } snapshot migrations',
      (v) =>
        Array.isArray(v) &&
        v.every(
          (m) => isObject(m) && typeof m['from'] === 'string' && typeof m['migrate'] === 'function',
        ),
    );
  checkStoreOption('new Agent()', options);
  checkTelemetryOptions('new Agent()', (options as Record<string, unknown>)['telemetry']);
  checkHistoryStrategy('new Agent()', (options as Record<string, unknown>)['history']);
  checkMemoryOptions('new Agent()', (options as Record<string, unknown>)['memory']);
  const { memory, store } = options as AgentOptions;
  if (memory && store && !hasMemory(store))
    throw new MemoryUnsupportedError(store.constructor.name);
  const { modelSettings, tools, toolkits } = options as AgentOptions;
  if (modelSettings === undefined) return;
  checkModelSettings('new Agent()', modelSettings);
  // Toolkit tools are known once a session is bound: checked at each run then.
  if (!toolkits?.length) {
    checkToolChoice(
      'new Agent()',
      modelSettings,
      (tools ?? []).map((t) => t.name),
    );
  }
}
