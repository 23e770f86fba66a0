import { z } from 'zod';
import type { RunContext } from '../context/run-context.js';
import { withRunContext } from '../context/run-context-storage.js';
import type { ToolSpec } from '../models/model.js';
import { guardTool } from '../tools/guard-tool.js';
import { toToolSpec, type AnyTool } from '../tools/tool.js';
import type { ToolkitSession } from '../tools/toolkit.js';
import type { AgentOptions } from './agent-options.js';

/**
 * An agent bound to one context: instructions resolved, toolkit instances created once, and
 * the tool roster built (agent tools plus toolkit tools, their failures routed through the
 * agent's `onToolError` and `redact`). `close()` releases the toolkits.
 */
export class AgentBinding {
  private closed = false;

  private constructor(
    readonly options: AgentOptions<unknown>,
    readonly context: RunContext,
    readonly instructions: string | undefined,
    readonly tools: ReadonlyMap<string, AnyTool>,
    readonly toolSpecs: ToolSpec[],
    readonly outputSchema: Record<string, unknown> | undefined,
    private readonly toolkitSessions: ToolkitSession[],
  ) {}

  static async create(options: AgentOptions<unknown>, context: RunContext): Promise<AgentBinding> {
    const sessions: ToolkitSession[] = [];
    try {
      for (const kit of options.toolkits ?? []) {
        sessions.push(await withRunContext(context, () => kit.create(context)));
      }
      const base =
        typeof options.instructions === 'function'
          ? await withRunContext(context, () =>
              (options.instructions as (c: RunContext) => string | Promise<string>)(context),
            )
          : options.instructions;
      const extra = sessions.flatMap((s) => (s.instructions ? [s.instructions] : []));
      const instructions =
        [base, ...extra].filter((s): s is string => !!s).join('\n\n') || undefined;
      const tools = new Map<string, AnyTool>();
      for (const t of [...(options.tools ?? []), ...sessions.flatMap((s) => s.tools)]) {
        if (tools.has(t.name))
          throw new TypeError(`Agent "${options.name}" has two tools named "${t.name}"`);
        tools.set(t.name, guardTool(t, options));
      }
      const outputSchema = options.outputType
        ? (z.toJSONSchema(options.outputType) as Record<string, unknown>)
        : undefined;
      return new AgentBinding(
        options,
        context,
        instructions,
        tools,
        [...tools.values()].map(toToolSpec),
        outputSchema,
        sessions,
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
    return new AgentBinding(options, context, undefined, new Map(), [], undefined, []);
  }

  /** Releases toolkit instances. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all(this.toolkitSessions.map(async (s) => s.close?.()));
  }
}
