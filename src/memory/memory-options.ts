import type { z } from 'zod';
import type { RunContext } from '../core/run-context.js';
import type { Embedder } from '../models/embedder.js';
import { OptionChecker, isObject, optionNames } from '../validation/option-checks.js';

/** Which messages recall embeds and keeps, and how it searches. */
export interface RecallOptions {
  /** How many memories join a model request at most. @default 5 */
  topK?: number | undefined;
  /** Cosine similarity a memory needs to be recalled (-1 to 1). @default 0.3 */
  minScore?: number | undefined;
  /** Which messages of a session are kept as memories. @default ['user'] */
  roles?: readonly ('user' | 'assistant')[] | undefined;
  /**
   * Where recall looks: `'resource'`, the run's resource only (a run without a resource: every
   * memory of the user); `'user'`, every memory of the user. @default 'resource'
   */
  scope?: 'resource' | 'user' | undefined;
}

/** The working memory the agent sees in each run and updates through its tool. */
export interface WorkingMemoryOptions {
  /**
   * A zod object: the document is an object of this shape, updated by merging the fields the
   * model sets (each update checked against it). Omitted: free text, updated by appending and
   * replacing passages.
   */
  schema?: z.ZodObject | undefined;
  /** What a free-text document starts as (a template the model fills in). */
  template?: string | undefined;
}

/**
 * `AgentOptions.memory`: what the agent remembers of its user across sessions. Memory lives in
 * the store of the session (it needs one whose `supports` claims `memory`: LevelDB, memory,
 * PostgreSQL), scoped by the run's `userId` and, when `resource` names one, a resource of theirs.
 */
export interface MemoryOptions {
  /** Embeds the messages recall keeps and searches, and the facts `remember` saves. */
  embedder?: Embedder | undefined;
  /** The resource of a run (a project, a ticket, a customer); `undefined`: the user's own scope. */
  resource?: ((context: RunContext) => string | undefined) | undefined;
  /** `false`: none. @default free text */
  workingMemory?: WorkingMemoryOptions | false | undefined;
  /** `false`: none. @default on when there is an `embedder` */
  recall?: RecallOptions | false | undefined;
  /** Gives the model the `remember` tool (saves a fact). @default true with an `embedder` */
  remember?: boolean | undefined;
}

const MEMORY_NAMES = optionNames<MemoryOptions>({
  embedder: true,
  resource: true,
  workingMemory: true,
  recall: true,
  remember: true,
});
const RECALL_NAMES = optionNames<RecallOptions>({
  topK: true,
  minScore: true,
  roles: true,
  scope: true,
});
const WORKING_NAMES = optionNames<WorkingMemoryOptions>({ schema: true, template: true });

/** Checks `memory` (a `TypeError` naming the option); `undefined` passes. */
export function checkMemoryOptions(where: string, memory: unknown): void {
  if (memory === undefined) return;
  new OptionChecker(where, memory, MEMORY_NAMES, 'memory')
    .implements('embedder', 'Embedder', ['embed'])
    .function('resource')
    .check('workingMemory', 'an object or false', (v) => v === false || isObject(v))
    .check('recall', 'an object or false', (v) => v === false || isObject(v))
    .check('remember', 'a boolean', (v) => typeof v === 'boolean');
  const options = memory as MemoryOptions;
  const embedder = options.embedder;
  if (embedder !== undefined) {
    const { name, dimensions, maxBatch } = embedder;
    if (typeof name !== 'string' || name.length === 0) {
      throw new TypeError(`${where}: memory.embedder.name must be a non-empty string`);
    }
    if (!Number.isInteger(dimensions) || dimensions < 1) {
      throw new TypeError(`${where}: memory.embedder.dimensions must be a positive integer`);
    }
    if (maxBatch !== undefined && (!Number.isInteger(maxBatch) || maxBatch < 1)) {
      throw new TypeError(`${where}: memory.embedder.maxBatch must be a positive integer`);
    }
  }
  const recall = options.recall;
  if (isObject(recall)) {
    new OptionChecker(where, recall, RECALL_NAMES, 'memory.recall')
      .check(
        'topK',
        'an integer from 1 to 100',
        (v) => Number.isInteger(v) && (v as number) >= 1 && (v as number) <= 100,
      )
      .check('minScore', 'a number from -1 to 1', (v) => typeof v === 'number' && v >= -1 && v <= 1)
      .check(
        'roles',
        "a non-empty array of 'user' and 'assistant'",
        (v) =>
          Array.isArray(v) && v.length > 0 && v.every((r) => r === 'user' || r === 'assistant'),
      )
      .check('scope', "'resource' or 'user'", (v) => v === 'resource' || v === 'user');
  }
  if (options.embedder === undefined && (isObject(recall) || options.remember === true)) {
    throw new TypeError(
      `${where}: memory.${isObject(recall) ? 'recall' : 'remember'} needs memory.embedder (an Embedder)`,
    );
  }
  const working = options.workingMemory;
  if (isObject(working)) {
    new OptionChecker(where, working, WORKING_NAMES, 'memory.workingMemory')
      .check(
        'schema',
        'a zod object (z.object({...}))',
        (v) => isObject(v) && typeof v['safeParse'] === 'function' && isObject(v['shape']),
      )
      .string('template');
    if (working['schema'] !== undefined && working['template'] !== undefined) {
      throw new TypeError(`${where}: memory.workingMemory takes a schema or a template, not both`);
    }
  }
}

/** The memory options with their defaults filled in. */
export interface ResolvedMemory {
  embedder: Embedder | undefined;
  resource: ((context: RunContext) => string | undefined) | undefined;
  working: WorkingMemoryOptions | undefined;
  recall: Required<RecallOptions> | undefined;
  remember: boolean;
}

export function resolveMemory(options: MemoryOptions): ResolvedMemory {
  const embedder = options.embedder;
  const recall = options.recall === false || !embedder ? undefined : (options.recall ?? {});
  return {
    embedder,
    resource: options.resource,
    working: options.workingMemory === false ? undefined : (options.workingMemory ?? {}),
    recall: recall && {
      topK: recall.topK ?? 5,
      minScore: recall.minScore ?? 0.3,
      roles: recall.roles ?? ['user'],
      scope: recall.scope ?? 'resource',
    },
    remember: embedder !== undefined && options.remember !== false,
  };
}
