import { ulid } from 'ulid';
import { RunContext, type RunContextInit } from '../context/run-context.js';
import type { RunInput } from '../items/item.js';
import { MemorySessionStore } from '../persistence/memory-session-store.js';
import type { SessionRecord, SessionStore } from '../persistence/session-store.js';
import type { Item } from '../items/item.js';
import { continueRun } from './actions/continue-run.js';
import { sendMessage } from './actions/send-message.js';
import { AgentBinding } from './agent-binding.js';
import { AgentModel } from './agent-model.js';
import type { AgentOptions } from './agent-options.js';
import { AgentSession } from './agent-session.js';
import { defaultStore } from './default-store.js';
import type { RunResult } from './run-result.js';
import { RunState } from './run-state.js';
import { createRunStream, type RunStream } from './run-stream.js';
import type { ActionObservers } from './session-action.js';
import { SessionRuntime, type BindingSource } from './session-runtime.js';

/** Options of one `run` / `stream` call. */
export interface RunOptions {
  /** Continue this conversation (created if new). Omitted: a fresh in-memory conversation. */
  sessionId?: string | undefined;
  /** The hard partition key: sessions of one user are invisible to every other. */
  userId?: string | undefined;
  /** App metadata, readable by tools through `getRunContext().metadata`. */
  metadata?: Record<string, unknown> | undefined;
  /** Overrides the agent's store for this call. */
  store?: SessionStore | undefined;
  /** Cancels in-flight model and tool calls; the run ends `cancelled`. */
  signal?: AbortSignal | undefined;
  /** Overrides the agent's turn limit. */
  maxTurns?: number | undefined;
}

/** Options of `resume`. */
export type ResumeOptions = Omit<RunOptions, 'sessionId'>;

/**
 * A stateless, reusable agent blueprint. `run` / `stream` execute one run in a session,
 * `resume` continues an interrupted or crashed one, `createSession` binds the agent to a
 * context for several runs.
 * @example
 * const agent = new Agent({ name: 'calc', model, tools: [add] });
 * const result = await agent.run('What is 2 + 3?', { sessionId: 'c1', userId: 'alice' });
 */
export class Agent<TOutput = string> implements BindingSource {
  readonly name: string;
  readonly options: AgentOptions<unknown>;
  private readonly runtimes = new WeakMap<SessionStore, SessionRuntime>();

  constructor(options: AgentOptions<TOutput>) {
    if (!options.name) throw new TypeError('Agent needs a name');
    if (!options.model) throw new TypeError(`Agent "${options.name}" needs a model`);
    this.name = options.name;
    // The runs call the model through the agent's wrapper: redacted errors, price warnings.
    const { redact, prices } = options;
    this.options = { ...options, model: new AgentModel(options.model, { redact, prices }) };
  }

  /** @internal Binds the agent to a context for one action (toolkits are closed after it). */
  async bind(context: RunContext) {
    const binding = await AgentBinding.create(this.options, context);
    return { binding, release: () => binding.close() };
  }

  run(input: RunInput, options: RunOptions = {}): Promise<RunResult<TOutput>> {
    return this.execute(input, options, {});
  }

  stream(input: RunInput, options: RunOptions = {}): RunStream<TOutput> {
    return createRunStream((observers) => this.execute(input, options, observers));
  }

  /**
   * Continues an interrupted or crashed run, from a session id (in the store) or a RunState
   * (whose approval decisions are applied).
   */
  async resume(
    target: string | RunState,
    options: ResumeOptions = {},
  ): Promise<RunResult<TOutput>> {
    const state = typeof target === 'string' ? undefined : target;
    const sessionId = state ? state.sessionId : (target as string);
    const userId = state ? state.userId : options.userId;
    let store = options.store ?? this.options.store;
    if (!store && state?.data.session) store = await importSession(state.data.session);
    store ??= defaultStore();
    return this.runtimeFor(store).execute(
      { sessionId, userId },
      continueRun<TOutput>({
        decisions: state?.decisions,
        maxTurns: options.maxTurns,
        signal: options.signal,
        metadata: options.metadata,
        ephemeral: !options.store && !this.options.store && state?.data.session !== undefined,
      }),
    );
  }

  /** Binds the agent to a context: instructions resolved and toolkits created once. */
  async createSession(
    context: RunContextInit = {},
    options: { store?: SessionStore } = {},
  ): Promise<AgentSession<TOutput>> {
    const ctx = new RunContext({ ...context, sessionId: context.sessionId ?? ulid() });
    const durable =
      options.store ?? this.options.store ?? (context.sessionId ? defaultStore() : undefined);
    const binding = await AgentBinding.create(this.options, ctx);
    return new AgentSession<TOutput>(
      this,
      binding,
      durable ?? new MemorySessionStore(),
      durable === undefined,
    );
  }

  /** The SessionRuntime this agent uses for `store` (one per store, sharing its history cache). */
  runtimeFor(store: SessionStore): SessionRuntime {
    let runtime = this.runtimes.get(store);
    if (!runtime) {
      runtime = new SessionRuntime({ store, agent: this });
      this.runtimes.set(store, runtime);
    }
    return runtime;
  }

  private execute(
    input: RunInput,
    options: RunOptions,
    observers: ActionObservers,
  ): Promise<RunResult<TOutput>> {
    const explicit = options.store ?? this.options.store;
    const ephemeral = !explicit && options.sessionId === undefined;
    const store = explicit ?? (ephemeral ? new MemorySessionStore() : defaultStore());
    const sessionId = options.sessionId ?? ulid();
    return this.runtimeFor(store).execute(
      { sessionId, userId: options.userId },
      sendMessage<TOutput>(input, {
        ...observers,
        signal: options.signal,
        metadata: options.metadata,
        maxTurns: options.maxTurns,
        ephemeral,
      }),
    );
  }
}

/** Restores the session a RunState of an in-memory run carries into a fresh memory store. */
async function importSession(session: {
  record: Record<string, unknown>;
  items: Item[];
}): Promise<SessionStore> {
  const store = new MemorySessionStore();
  const { version: _version, ...record } = session.record as unknown as SessionRecord;
  await store.create({ ...record, historyLength: session.items.length }, session.items);
  return store;
}
