import { z } from 'zod';
import { InvalidWorkingMemoryError } from '../errors/memory-errors.js';
import type { WorkingMemoryRecord } from '../persistence/memory-store.js';
import type { WorkingMemoryOptions } from './memory-options.js';

/**
 * A working-memory document and the patches that change it. Free text is patched by appending
 * and by replacing passages; a document with the app's schema by setting fields (a shallow
 * merge, `null` removes a field), the result checked against the schema with every field
 * optional. A patch applies to the document as stored when it is written, never to the copy the
 * model read, so two sessions patching at once both land (see `ScopedMemory`).
 */

/** A patch of a free-text document. */
export const TextPatch = z
  .object({
    append: z
      .string()
      .min(1)
      .max(8000)
      .optional()
      .describe('Text to add at the end, as a new line'),
    replace: z
      .array(
        z.object({
          find: z.string().min(1).describe('A passage of the current text, exactly'),
          with: z.string().describe('What replaces it (empty: remove it)'),
        }),
      )
      .max(20)
      .optional()
      .describe('Passages to replace, each found in the current text'),
  })
  .describe('What to change in the working memory: append, replace passages, or both');

/** The model-facing parameters of a schema'd document's patch (`set`: the fields it changes). */
export function objectPatchSchema(schema: z.ZodObject): z.ZodObject {
  return z.object({
    set: schema
      .partial()
      .describe('The fields to set (a field set to null is removed); the others are kept'),
  });
}

/** The parameters the patch is parsed with before it is checked against the schema itself. */
export const LooseObjectPatch = z.object({ set: z.record(z.string(), z.unknown()) });

/** The document a patch applies to when none is stored yet. */
export function initialContent(options: WorkingMemoryOptions): unknown {
  return options.schema ? {} : (options.template ?? '');
}

/** `patch` applied to `content` (`InvalidWorkingMemoryError` when it cannot apply or breaks the schema). */
export function applyPatch(
  content: unknown,
  patch: unknown,
  options: WorkingMemoryOptions,
): unknown {
  const schema = options.schema;
  if (schema) {
    const parsed = LooseObjectPatch.safeParse(patch);
    if (!parsed.success) throw new InvalidWorkingMemoryError('expected { set: { field: value } }');
    const base = typeof content === 'object' && content !== null ? { ...content } : {};
    const merged: Record<string, unknown> = base;
    for (const [field, value] of Object.entries(parsed.data.set)) {
      if (value === null) delete merged[field];
      else merged[field] = value;
    }
    const checked = schema.partial().safeParse(merged);
    if (!checked.success) {
      const issues = checked.error.issues
        .map((i) => `${i.path.length ? i.path.join('.') : '(root)'}: ${i.message}`)
        .join('; ');
      throw new InvalidWorkingMemoryError(`the document would break its schema (${issues})`);
    }
    return checked.data;
  }
  const parsed = TextPatch.safeParse(patch);
  if (!parsed.success || (parsed.data.append === undefined && !parsed.data.replace?.length)) {
    throw new InvalidWorkingMemoryError('expected { append?: string, replace?: [{ find, with }] }');
  }
  let text = typeof content === 'string' ? content : '';
  for (const { find, with: by } of parsed.data.replace ?? []) {
    const at = text.indexOf(find);
    if (at < 0) {
      throw new InvalidWorkingMemoryError(
        `the passage to replace is not in the working memory: ${JSON.stringify(find.slice(0, 80))}`,
      );
    }
    text = text.slice(0, at) + by + text.slice(at + find.length);
  }
  if (parsed.data.append !== undefined)
    text = text === '' ? parsed.data.append : `${text}\n${parsed.data.append}`;
  return text;
}

/** The section of the instructions that shows the working memory to the model. */
export function workingMemorySection(
  record: WorkingMemoryRecord | undefined,
  options: WorkingMemoryOptions,
  toolName: string,
): string {
  const content = record?.content ?? initialContent(options);
  const body =
    typeof content === 'string'
      ? content === ''
        ? '(empty)'
        : content
      : JSON.stringify(content, null, 2);
  return [
    '## Working memory',
    `What you keep about this user across conversations (version ${record?.version ?? 0}). When you learn something lasting about them, update it with the \`${toolName}\` tool.`,
    '<working_memory>',
    body,
    '</working_memory>',
  ].join('\n');
}
