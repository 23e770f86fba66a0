import type { RunContext } from '../core/run-context.js';
import { InstructionsError, ToolkitError } from '../errors/run-errors.js';
import { withRunContext } from '../core/run-context-storage.js';
import type { ToolSpec } from '../models/model.js';
import { guardTool } from '../tools/guard-tool.js';
import { toToolSpec, type AnyTool } from '../tools/tool.js';
import type { ToolkitSession } from '../tools/toolkit.js';
import type { AgentOptions } from './agent-options.js';
import { DefinitionCache } from './definition-cache.js';
import type { DefinitionFingerprint } from './definition-fingerprint.js';
import { toolRoster } from './tool-roster.js';

/** What `close` answers when there is nothing to close (settled, shared). */
const CLOSED: Promise<void> = Promise.resolve();

/**
 * An agent bound to one context: instructions resolved, toolkit instances created once, and
 * the tool roster built (agent tools plus toolkit tools, their failures routed through the
 * agent's `onToolError` and `redact`). `close()` releases the toolkits.
 */
export class AgentBinding {
  private closed = false;
  private fingerprint: ReturnType<DefinitionCache['fingerprintOf']> | undefined;

  private constructor(
    readonly options: AgentOptions<unknown>,
    readonly context: RunContext,
    readonly instructions: string | undefined,
    readonly tools: ReadonlyMap<string, AnyTool>,
    readonly toolSpecs: ToolSpec[],
    readonly outputSchema: Record<string, unknown> | undefined,
    private readonly toolkitSessions: ToolkitSession[],
    private readonly shared: DefinitionCache,
  ) {}

  /**
   * Binds `options` to `context`. `shared` holds what the agent's bindings share, computed once
   * per definition (the agent passes its own; without one, this binding computes its own).
   */
  static async create(
    options: AgentOptions<unknown>,
    context: RunContext,
    shared: DefinitionCache = new DefinitionCache(),
  ): Promise<AgentBinding> {
    const sessions: ToolkitSession[] = [];
    try {
      const scope = { sessionId: context.sessionId };
      for (const kit of options.toolkits ?? []) {
        try {
          sessions.push(await withRunContext(context, () => kit.create(context)));
        } catch (error) {
          throw new ToolkitError(kit.name, 'create', error, scope);
        }
      }
      const instructions = options.instructions;
      let base: string | undefined;
      try {
        base =
          typeof instructions === 'function'
            ? await withRunContext(context, () => instructions(context))
            : instructions;
      } catch (error) {
        throw new InstructionsError(options.name, error, scope);
      }
      const extra = sessions.flatMap((s) => (s.instructions ? [s.instructions] : []));
      const allInstructions =
        [base, ...extra].filter((s): s is string => !!s).join('\n\n') || undefined;
      const kits = options.toolkits ?? [];
      const roster = toolRoster(
        options,
        sessions.map((s, i) => ({ name: kits[i]?.name ?? String(i), tools: s.tools })),
        shared,
      );
      const tools = new Map<string, AnyTool>(roster.map((t) => [t.name, guardTool(t, options)]));
      const outputType = options.outputType;
      const outputSchema = outputType ? shared.outputSchema(options.name, outputType) : undefined;
      return new AgentBinding(
        options,
        context,
        allInstructions,
        tools,
        [...tools.values()].map(toToolSpec),
        outputSchema,
        sessions,
        shared,
      );
    } catch (error) {
      await Promise.allSettled(sessions.map(async (s) => s.close?.()));
      throw error;
    }
  }

  /**
   * A binding with no tools, for actions that only change a session's lifecycle or settings
   * (no run is in flight, so no step will execute).
   */
  static inert(options: AgentOptions<unknown>, context: RunContext): AgentBinding {
    return new AgentBinding(
      options,
      context,
      undefined,
      new Map(),
      [],
      undefined,
      [],
      new DefinitionCache(),
    );
  }

  /**
   * What defines the runs this binding starts: see `DefinitionFingerprint`. Computed once per
   * definition, not per binding (`DefinitionCache`).
   */
  get definition(): DefinitionFingerprint {
    this.fingerprint ??= this.shared.fingerprintOf(this);
    return this.fingerprint.fingerprint;
  }

  /** The same, as a run stores it (`storedDefinition`: short keys). */
  get storedDefinition(): Readonly<Record<string, string>> {
    this.fingerprint ??= this.shared.fingerprintOf(this);
    return this.fingerprint.stored;
  }

  /**
   * Releases toolkit instances. Idempotent. A toolkit whose `close` throws: `ToolkitError`.
   * A binding without toolkits answers a settled promise (no chain of promises to build).
   */
  close(): Promise<void> {
    if (this.closed || this.toolkitSessions.length === 0) {
      this.closed = true;
      return CLOSED;
    }
    this.closed = true;
    return this.closeToolkits();
  }

  private async closeToolkits(): Promise<void> {
    const kits = this.options.toolkits ?? [];
    const results = await Promise.allSettled(this.toolkitSessions.map(async (s) => s.close?.()));
    const failed = results.findIndex((r) => r.status === 'rejected');
    if (failed >= 0) {
      const reason: unknown = (results[failed] as PromiseRejectedResult).reason;
      throw new ToolkitError(kits[failed]?.name ?? 'toolkit', 'close', reason, {
        sessionId: this.context.sessionId,
      });
    }
  }
}

/** Supplies the agent bound to a session's context (created per action, or a shared binding). */
export interface BindingSource {
  readonly options: AgentOptions<unknown>;
  /**
   * @internal The runtime's own (not in the shipped types, like `Agent.bind`); the options
   * check refuses a handoff or sub-agent without it.
   */
  bind(context: RunContext): Promise<{ binding: AgentBinding; release(): Promise<void> }>;
}
