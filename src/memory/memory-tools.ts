import { z } from 'zod';
import {
  parametersJsonSchema,
  tool,
  type AnyTool,
  type ToolExecuteOptions,
} from '../tools/tool.js';
import type { ToolMemory } from '../tools/tool-memory.js';
import { resolveMemory, type MemoryOptions } from './memory-options.js';
import { LooseObjectPatch, TextPatch, objectPatchSchema } from './working-memory.js';

/** The names the model calls the memory tools by. */
export const REMEMBER_TOOL = 'remember';
export const WORKING_MEMORY_TOOL = 'update_working_memory';

/** The run's memory, or why a memory tool cannot run here. */
function memoryOf(options: ToolExecuteOptions, name: string): ToolMemory {
  if (!options.memory) {
    throw new Error(`"${name}" runs only in a session's run of the agent that has memory`);
  }
  return options.memory;
}

/**
 * The tools an agent with `memory` gives its model: `update_working_memory` (when it keeps
 * working memory) and `remember` (when it has an embedder). Both are idempotent through their
 * call id (`<sessionId>:<callId>` names the update, `fact:<sessionId>:<callId>` the fact), so a
 * call in flight at a crash is run again and takes effect once.
 */
export function memoryTools(options: MemoryOptions | undefined): AnyTool[] {
  if (!options) return [];
  const resolved = resolveMemory(options);
  const tools: AnyTool[] = [];
  const working = resolved.working;
  if (working) {
    const description = working.schema
      ? 'Update the working memory you keep about this user: set the fields that changed (null removes one). Kept across conversations.'
      : 'Update the working memory you keep about this user: append a line, or replace a passage of it. Kept across conversations.';
    const base = tool({
      name: WORKING_MEMORY_TOOL,
      description,
      parameters: working.schema ? LooseObjectPatch : TextPatch,
      idempotent: true,
      execute: async (patch, execution) => {
        const memory = memoryOf(execution, WORKING_MEMORY_TOOL);
        const opId = `${execution.context.sessionId ?? ''}:${execution.callId}`;
        const { version } = await memory.updateWorkingMemory(patch, { opId });
        return `Working memory updated (version ${version}).`;
      },
    });
    // The model is shown the app's fields; the patch is checked against them when it applies,
    // so a value that breaks the schema is the typed error the model reads.
    tools.push(
      working.schema
        ? Object.freeze({
            ...base,
            jsonSchema: parametersJsonSchema(
              WORKING_MEMORY_TOOL,
              objectPatchSchema(working.schema),
            ),
          })
        : base,
    );
  }
  if (resolved.remember) {
    tools.push(
      tool({
        name: REMEMBER_TOOL,
        description:
          'Save a fact about the user worth recalling in later conversations (one self-contained sentence).',
        parameters: z.object({ text: z.string().min(1).max(2000) }),
        idempotent: true,
        execute: async ({ text }, execution) => {
          const memory = memoryOf(execution, REMEMBER_TOOL);
          const sessionId = execution.context.sessionId;
          const id = `fact:${sessionId ?? ''}:${execution.callId}`;
          await memory.remember(text, { id });
          return 'Saved.';
        },
      }),
    );
  }
  return tools;
}
