import { z } from 'zod';
import type { RunContext } from '../core/run-context.js';
import { tool, type NeedsApproval, type SubAgentRef, type Tool } from '../tools/tool.js';
import { OptionChecker, optionNames } from '../validation/option-checks.js';
import { isPlainJson, jsonCopy } from '../validation/plain-json.js';
import type { AgentOptions } from '../definition/agent-options.js';

/** Options of `agent.asTool`. */
export interface AgentToolOptions<TArgs = { input: string }> {
  /** Name the parent's model calls the sub-agent by. */
  name: string;
  /** What the parent's model is told the sub-agent does. */
  description: string;
  /**
   * The call's parameters, a zod object. The child's first message is `inputText(args)`.
   * @default z.object({ input: z.string() }), whose `input` is the child's first message
   */
  input?: z.ZodObject | undefined;
  /** The child's first user message from the call's arguments. @default `args.input` or JSON */
  inputText?: ((args: TArgs) => string) | undefined;
  /**
   * Metadata merged over the parent's in the child's RunContext (plain JSON; stored with the
   * child run), or a function of the arguments and the parent's context returning it.
   */
  metadata?:
    | Record<string, unknown>
    | ((args: TArgs, parent: RunContext) => Record<string, unknown>)
    | undefined;
  /** The child's `userId`, instead of the parent's. */
  userId?: string | undefined;
  /** The child's `sessionId` in its RunContext, instead of the parent's (storage is the parent's). */
  sessionId?: string | undefined;
  /** Whether a human approves each call before the child starts. @default false */
  needsApproval?: NeedsApproval<TArgs> | undefined;
  /**
   * A failed or cancelled child fails the parent run with the child's error. By default the
   * parent's model reads a tool error item saying why, and goes on.
   * @default false
   */
  failParent?: boolean | undefined;
}

const AGENT_TOOL_OPTION_NAMES = optionNames<AgentToolOptions>({
  name: true,
  description: true,
  input: true,
  inputText: true,
  metadata: true,
  userId: true,
  sessionId: true,
  needsApproval: true,
  failParent: true,
});

const DefaultInput = z.object({
  input: z.string().describe('The task for the agent, in full: it sees nothing else'),
});

/** What `agentTool` needs of the agent: its name, options and a plain run for direct calls. */
export interface SubAgentSource {
  readonly name: string;
  readonly options: AgentOptions<unknown>;
  run(input: string, options: { metadata?: Record<string, unknown> }): Promise<{ output: unknown }>;
}

/**
 * A tool that runs `agent` as a sub-agent: in a run, a call starts a child run of the run
 * machine, nested in the caller's run (its snapshot, journal and approvals included) with the
 * caller's RunContext overridden; its final output is the call's result. Called directly
 * (outside a run), it runs the agent once and returns its output.
 */
export function agentTool<TArgs>(
  agent: SubAgentSource,
  options: AgentToolOptions<TArgs>,
): Tool<TArgs, unknown> {
  new OptionChecker(`${agent.name}.asTool()`, options ?? null, AGENT_TOOL_OPTION_NAMES)
    .nonEmptyString('name', true)
    .check('description', 'a string', (v) => typeof v === 'string', true)
    .check('input', 'a zod object (z.object({...}))', (v) => v instanceof z.ZodObject)
    .function('inputText')
    .check(
      'metadata',
      'a plain-JSON object or a function',
      (v) => typeof v === 'function' || isPlainJson(v),
    )
    .nonEmptyString('userId')
    .nonEmptyString('sessionId')
    .check('needsApproval', 'a boolean or a function', (v) =>
      ['boolean', 'function'].includes(typeof v),
    )
    .check('failParent', 'a boolean', (v) => typeof v === 'boolean');
  const inputText = (args: unknown): string =>
    options.inputText
      ? options.inputText(args as TArgs)
      : options.input
        ? JSON.stringify(args)
        : (args as { input: string }).input;
  const metadataOf = (args: unknown, parent: RunContext): Record<string, unknown> | undefined => {
    const { metadata } = options;
    const value = typeof metadata === 'function' ? metadata(args as TArgs, parent) : metadata;
    if (value === undefined) return undefined;
    if (!isPlainJson(value)) {
      throw new TypeError(`${agent.name}.asTool(): metadata must be plain JSON`);
    }
    return jsonCopy(value);
  };
  const base = tool({
    name: options.name,
    description: options.description,
    parameters: options.input ?? DefaultInput,
    ...(options.needsApproval === undefined
      ? {}
      : { needsApproval: options.needsApproval as NeedsApproval<unknown> }),
    execute: async (args, { context }) =>
      (await agent.run(inputText(args), { metadata: metadataOf(args, context) ?? {} })).output,
  });
  const subAgent: SubAgentRef = {
    agent,
    maxTurns: agent.options.maxTurns ?? 10,
    inputText,
    metadata: metadataOf,
    userId: options.userId,
    sessionId: options.sessionId,
    failParent: options.failParent === true,
  };
  return Object.freeze({ ...base, subAgent }) as unknown as Tool<TArgs, unknown>;
}
