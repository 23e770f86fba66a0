import type { RunInput } from '../items/item.js';
import {
  checkToolChoice,
  mergeModelSettings,
  type ModelSettings,
} from '../models/model-settings.js';
import type { SessionStore } from '../persistence/session-store.js';
import { messageAction } from '../actions/send-message.js';
import { messageOf } from '../actions/message.js';
import type { AgentBinding } from '../definition/agent-binding.js';
import type { AgentOptions } from '../definition/agent-options.js';
import type { RunResult } from '../session-host/run-result.js';
import { SessionNotFoundError } from '../errors/session-errors.js';
import { describeValue } from '../validation/option-checks.js';
import { continueAction } from '../actions/continue-run.js';
import { checkRunCall, checkRunOptions } from '../actions/run-call-checks.js';
import { SESSION_RESUME_OPTION_NAMES, SESSION_RUN_OPTION_NAMES } from './agent-call-checks.js';
import { RunState } from '../runs/run-state.js';
import { createRunStream, type RunStream } from './run-stream.js';
import { SessionRuntime } from '../sessions/session-runtime.js';
import type { BindingSource } from '../definition/agent-binding.js';
import type { Durability } from '../core/durability-policy.js';
import type { WhileBusy } from '../core/busy-policy.js';

/** Options of a run inside an AgentSession. */
export interface SessionRunOptions {
  signal?: AbortSignal | undefined;
  maxTurns?: number | undefined;
  /** Model settings of this run, merged over the agent's (ignored by `resume`: see there). */
  modelSettings?: ModelSettings | undefined;
  /**
   * When this run's changes are saved (see `AgentOptions.durability`); wins over the runtime's
   * and the agent's for this call.
   * @default the runtime's, else the agent's, else 'step'
   */
  durability?: Durability | undefined;
  /**
   * What this message does while the session's run executes (see `AgentOptions.whileBusy`);
   * wins over the agent's.
   */
  whileBusy?: WhileBusy | undefined;
  /**
   * The message's own id (see `RunOptions.messageId`): the session answers an id once, whichever
   * way it comes in (`agent.run`, this session's `run` or `stream`). The same id again is
   * `MessageAnsweredError` naming the run that answers it, and stores nothing.
   */
  messageId?: string | undefined;
}

/**
 * An agent bound to one context (seed 001's run session): instructions resolved and toolkit
 * instances created once, reused by every run, released by `close()`. Runs continue the
 * context's session, so each sees the previous turns.
 */
export class AgentSession<TOutput = string> implements BindingSource {
  readonly runtime: SessionRuntime;
  private closed = false;

  constructor(
    private readonly agent: {
      readonly options: AgentOptions<unknown>;
      liveRunsFor?(store: SessionStore): Set<string>;
    },
    readonly binding: AgentBinding,
    readonly store: SessionStore,
    private readonly ephemeral: boolean,
  ) {
    // The runtime serves this session's own key only: another key is not found, never run
    // with this session's toolkit instances and instructions. It shares the agent's guard
    // against a second live run of one session.
    this.runtime = new SessionRuntime({
      store,
      agent: this,
      scope: this.key(),
      liveRuns: agent.liveRunsFor?.(store),
    });
  }

  get options(): AgentOptions<unknown> {
    return this.agent.options;
  }

  get sessionId(): string {
    return this.binding.context.sessionId ?? '';
  }

  /** @internal Every action reuses this session's binding. */
  async bind() {
    if (this.closed) throw new TypeError('AgentSession is closed');
    return { binding: this.binding, release: async () => undefined };
  }

  run(input: RunInput, options: SessionRunOptions = {}): Promise<RunResult<TOutput>> {
    checkRunCall('session.run()', input, options, SESSION_RUN_OPTION_NAMES);
    const message = messageOf(input, this.runOptions(options), true);
    return this.runtime.execute(this.key(), messageAction<TOutput>(message));
  }

  stream(input: RunInput, options: SessionRunOptions = {}): RunStream<TOutput> {
    checkRunCall('session.stream()', input, options, SESSION_RUN_OPTION_NAMES);
    return createRunStream(
      (observers) =>
        this.runtime.execute(
          this.key(),
          messageAction<TOutput>(
            messageOf(input, { ...this.runOptions(options), ...observers }, true),
          ),
        ),
      options.signal,
    );
  }

  /**
   * Continues this session's interrupted or crashed run, applying the approval decisions of
   * `state` when given. A RunState of another session or user is `SessionNotFoundError`.
   * @example
   * const again = await agentSession.resume(paused.state.approve(callId));
   */
  resume(
    state?: RunState,
    options: Omit<SessionRunOptions, 'modelSettings' | 'messageId'> = {},
  ): Promise<RunResult<TOutput>> {
    if (state !== undefined && !(state instanceof RunState)) {
      throw new TypeError(
        `session.resume(): the state must be a RunState (RunState.fromJSON reads a saved one), got ${describeValue(state)}`,
      );
    }
    checkRunOptions('session.resume()', options, SESSION_RESUME_OPTION_NAMES);
    const key = this.key();
    if (state && (state.sessionId !== key.sessionId || state.userId !== key.userId)) {
      return Promise.reject(new SessionNotFoundError(state.sessionId));
    }
    return this.runtime.execute(
      key,
      continueAction<TOutput>({
        ...options,
        decisions: state?.decisionsToApply(),
        ephemeral: this.ephemeral,
      }),
    );
  }

  /** Releases toolkit instances. Further runs throw. */
  async close(): Promise<void> {
    this.closed = true;
    await this.binding.close();
  }

  /**
   * The session's context metadata is stored with each run, so a resume elsewhere has it. A
   * `toolChoice` naming a tool the agent lacks fails here, before anything is stored.
   */
  private runOptions(options: SessionRunOptions) {
    const settings = mergeModelSettings(this.options.modelSettings, options.modelSettings);
    checkToolChoice('session.run()', settings, [...this.binding.tools.keys()]);
    return {
      ...options,
      whileBusy: options.whileBusy ?? this.options.whileBusy,
      metadata: this.binding.context.metadata,
      ephemeral: this.ephemeral,
    };
  }

  private key() {
    return { sessionId: this.sessionId, userId: this.binding.context.userId };
  }
}
