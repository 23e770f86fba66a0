import { z } from 'zod';
import type { RunContext } from '../core/run-context.js';
import type { ToolSpec } from '../models/model.js';
import { OptionChecker, isObject, optionNames } from '../validation/option-checks.js';
import { jsonSchemaOf } from './json-schema-of.js';
import type { OnInterrupted, Reconcile } from './in-doubt.js';
import type { ToolMemory } from './tool-memory.js';

/** What `execute` receives besides its arguments. */
export interface ToolExecuteOptions {
  /** The run's context (also available through `getRunContext()`). */
  context: RunContext;
  /** Aborted when the run is cancelled. */
  signal: AbortSignal;
  /**
   * The model's call id: stable across a crash and resume, so a tool with side effects can use
   * it as an idempotency key (only the call in flight at a crash may run twice).
   */
  callId: string;
  /**
   * The run's memory across sessions (its user's, and resource's): present for the tools of a
   * session's own agent when it has `memory` (`AgentOptions.memory`).
   */
  memory?: ToolMemory | undefined;
}

/** Decides per call whether a human must approve it; evaluated once and journaled. */
export type NeedsApproval<TArgs> =
  boolean | ((args: TArgs, context: RunContext) => boolean | Promise<boolean>);

export interface ToolDefinition<TSchema extends z.ZodObject, TResult> {
  /** Name the model calls the tool by: letters, digits, `_` and `-`. */
  name: string;
  description: string;
  /** A zod object; its JSON Schema is what the model sees, and arguments are validated by it. */
  parameters: TSchema;
  /** @default false */
  needsApproval?: NeedsApproval<z.infer<TSchema>>;
  /**
   * Running the tool twice with the same call id has the effect of running it once (it reads
   * `callId` as an idempotency key, or has no side effect). Makes `'retry'` its
   * `onInterrupted` default.
   * @default false
   */
  idempotent?: boolean;
  /**
   * What a restored run does with a call of this tool that was in flight when its process
   * stopped (in doubt: its effect may or may not have happened), when `reconcile` is absent or
   * answers `'unknown'`: `'retry'` runs it again with the same call id, `'fail'` gives the model
   * a tool error saying the outcome is unknown, `'ask'` pauses the run (interruption
   * `in_doubt`) until an operator resolves the call (`agent.resolveInDoubt`, the command
   * line's `in-doubt`, the inspector): run it again, record its result, or fail it. Defaults to `'retry'` for an `idempotent` tool
   * and to `'fail'` otherwise: an unattended run goes on and no effect happens twice (a
   * duplicated payment costs more than a model told to check).
   */
  onInterrupted?: OnInterrupted;
  /** Looks up the effect of a call in doubt before `onInterrupted` applies. */
  reconcile?: Reconcile<z.infer<TSchema>, TResult>;
  execute(args: z.infer<TSchema>, options: ToolExecuteOptions): TResult | Promise<TResult>;
}

/**
 * Marks a tool that runs another agent as a child run of the caller's (made by
 * `agent.asTool`). The tools layer knows the agent only by name; the runtime binds it.
 */
export interface SubAgentRef {
  readonly agent: { readonly name: string };
  /** The child's turn limit. */
  readonly maxTurns: number;
  /** The child's first user message, from the call's validated arguments. */
  inputText(args: unknown): string;
  /** Metadata merged over the parent's in the child's RunContext (plain JSON). */
  metadata(args: unknown, parent: RunContext): Record<string, unknown> | undefined;
  /** Explicit RunContext overrides (inherited from the parent otherwise). */
  readonly userId?: string | undefined;
  readonly sessionId?: string | undefined;
  /** A failed child fails the parent run instead of becoming a tool error item. */
  readonly failParent: boolean;
}

/** A tool ready for an agent. */
export interface Tool<TArgs = unknown, TResult = unknown> {
  readonly name: string;
  readonly description: string;
  readonly parameters: z.ZodType<TArgs>;
  /** JSON Schema generated from `parameters`. */
  readonly jsonSchema: Record<string, unknown>;
  readonly needsApproval: NeedsApproval<TArgs>;
  /** See `ToolDefinition.idempotent`. */
  readonly idempotent?: boolean | undefined;
  /** See `ToolDefinition.onInterrupted`. */
  readonly onInterrupted?: OnInterrupted | undefined;
  /** See `ToolDefinition.reconcile`. */
  readonly reconcile?: Reconcile<TArgs, TResult> | undefined;
  execute(args: TArgs, options: ToolExecuteOptions): TResult | Promise<TResult>;
  /** Set on a sub-agent tool (`agent.asTool`): the call starts a child run. */
  readonly subAgent?: SubAgentRef | undefined;
  /** Set on a handoff tool (`handoffs`): once called, this agent takes over the run. */
  readonly handoff?: { readonly agent: { readonly name: string } } | undefined;
}

/** Any tool, whatever its argument and result types. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyTool = Tool<any, unknown>;

const NAME = /^[a-zA-Z0-9_-]{1,64}$/;

const TOOL_OPTION_NAMES = optionNames<ToolDefinition<z.ZodObject, unknown>>({
  name: true,
  description: true,
  parameters: true,
  needsApproval: true,
  idempotent: true,
  onInterrupted: true,
  reconcile: true,
  execute: true,
});

/** What `parameters` must be, with the likely cause when it is a zod schema of another copy. */
function zodObjectExpected(value: unknown): string {
  const expected = 'a zod object (z.object({...}))';
  if (!isObject(value)) return expected;
  const internals = value['_zod'];
  if (value['_def'] !== undefined && internals === undefined) {
    return `${expected} of zod 4; this looks like a zod 3 schema, and agentstate needs zod 4 (its peer dependency)`;
  }
  if (isObject(internals) && isObject(internals['def']) && internals['def']['type'] === 'object') {
    return `${expected} of the app's zod; this one comes from another copy of zod (deduplicate zod so the app has one)`;
  }
  return expected;
}

/**
 * Defines a tool.
 * @example
 * const add = tool({
 *   name: 'add', description: 'Adds two numbers',
 *   parameters: z.object({ a: z.number(), b: z.number() }),
 *   execute: ({ a, b }) => a + b,
 * });
 */
export function tool<TSchema extends z.ZodObject, TResult>(
  definition: ToolDefinition<TSchema, TResult>,
): Tool<z.infer<TSchema>, TResult> {
  const name = isObject(definition) ? definition.name : undefined;
  new OptionChecker(
    typeof name === 'string' ? `tool("${name}")` : 'tool()',
    definition ?? null,
    TOOL_OPTION_NAMES,
  )
    .check(
      'name',
      `a name matching ${String(NAME)}`,
      (v) => typeof v === 'string' && NAME.test(v),
      true,
    )
    .check('description', 'a string', (v) => typeof v === 'string', true)
    .check(
      'parameters',
      zodObjectExpected(definition.parameters),
      (v) => v instanceof z.ZodObject,
      true,
    )
    .check('needsApproval', 'a boolean or a function', (v) =>
      ['boolean', 'function'].includes(typeof v),
    )
    .check('idempotent', 'a boolean', (v) => typeof v === 'boolean')
    .check('onInterrupted', "'retry', 'ask' or 'fail'", (v) =>
      ['retry', 'ask', 'fail'].includes(v as string),
    )
    .function('reconcile')
    .function('execute', true);
  const jsonSchema = parametersJsonSchema(definition.name, definition.parameters);
  return Object.freeze({
    name: definition.name,
    description: definition.description,
    parameters: definition.parameters as unknown as z.ZodType<z.infer<TSchema>>,
    jsonSchema,
    needsApproval: definition.needsApproval ?? false,
    ...(definition.idempotent === undefined ? {} : { idempotent: definition.idempotent }),
    ...(definition.onInterrupted ? { onInterrupted: definition.onInterrupted } : {}),
    ...(definition.reconcile ? { reconcile: definition.reconcile } : {}),
    execute: (args: z.infer<TSchema>, options: ToolExecuteOptions) =>
      definition.execute(args, options),
  });
}

/** The JSON Schema the model is shown for a tool's `parameters` (`InvalidSchemaError` if none). */
export function parametersJsonSchema(
  name: string,
  parameters: z.ZodObject,
): Record<string, unknown> {
  return jsonSchemaOf(`The parameters of tool "${name}"`, () => {
    const schema = z.toJSONSchema(parameters, { target: 'draft-7' });
    delete schema.$schema;
    return schema;
  });
}

/** The model-facing description of a tool. */
export function toToolSpec(t: AnyTool): ToolSpec {
  return { name: t.name, description: t.description, parameters: t.jsonSchema };
}
