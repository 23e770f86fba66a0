import type { RunInput } from '../items/item.js';
import type { SessionStore } from '../persistence/session-store.js';
import { sendMessage } from './actions/send-message.js';
import type { AgentBinding } from './agent-binding.js';
import type { AgentOptions } from './agent-options.js';
import type { RunResult } from './run-result.js';
import { SESSION_RUN_OPTION_NAMES, checkRunCall } from './run-call-checks.js';
import { createRunStream, type RunStream } from './run-stream.js';
import { SessionRuntime, type BindingSource } from './session-runtime.js';

/** Options of a run inside an AgentSession. */
export interface SessionRunOptions {
  signal?: AbortSignal | undefined;
  maxTurns?: number | undefined;
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
    this.runtime = new SessionRuntime({ store, agent: this, liveRuns: agent.liveRunsFor?.(store) });
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
    return this.runtime.execute(
      this.key(),
      sendMessage<TOutput>(input, { ...options, ephemeral: this.ephemeral }),
    );
  }

  stream(input: RunInput, options: SessionRunOptions = {}): RunStream<TOutput> {
    checkRunCall('session.stream()', input, options, SESSION_RUN_OPTION_NAMES);
    return createRunStream((observers) =>
      this.runtime.execute(
        this.key(),
        sendMessage<TOutput>(input, { ...options, ...observers, ephemeral: this.ephemeral }),
      ),
    );
  }

  /** Releases toolkit instances. Further runs throw. */
  async close(): Promise<void> {
    this.closed = true;
    await this.binding.close();
  }

  private key() {
    return { sessionId: this.sessionId, userId: this.binding.context.userId };
  }
}
