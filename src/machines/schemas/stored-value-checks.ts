import { z } from 'zod';
import type { ErrorScope } from '../../errors/agentstate-error.js';
import { InvalidSessionRecordError } from '../../errors/session-errors.js';
import { StepOutputByKind } from './step-output-by-kind.js';

/** The dotted path of the first field a zod error names, `(root)` for the value itself. */
export function firstField(error: z.ZodError): string {
  const path = error.issues[0]?.path ?? [];
  return path.length ? path.map(String).join('.') : '(root)';
}

/**
 * Checks a journal entry's output against the shape its kind replays (a model answer's usage
 * included: token counts are safe non-negative integers, costs finite and non-negative). Every
 * read of an entry runs it (`decodeJournalAt`), so no read path hands on a resealed impossible
 * value. Throws `InvalidSessionRecordError` naming `key` and the field (`output.usage.costUsd`).
 */
export function checkJournalOutput(
  key: string,
  entry: { kind: keyof typeof StepOutputByKind; output: unknown },
  scope: ErrorScope = {},
): void {
  const parsed = StepOutputByKind[entry.kind].safeParse(entry.output);
  if (!parsed.success) {
    throw new InvalidSessionRecordError(key, z.prettifyError(parsed.error), {
      ...scope,
      field: `output.${firstField(parsed.error)}`,
      cause: parsed.error,
    });
  }
}
