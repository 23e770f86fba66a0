import { z } from 'zod';
import { isObject } from '../../validation/option-checks.js';
import type { Scorer } from '../scorer.js';

/** Options of `outputSchema`. */
export interface OutputSchemaOptions {
  /** The scorer's name in reports. @default 'schema' */
  name?: string | undefined;
}

const isZod = (schema: unknown): schema is z.ZodType =>
  isObject(schema) && typeof schema['safeParse'] === 'function' && '_zod' in schema;

/**
 * Passes when the output follows `schema` (a zod schema, or a JSON Schema object): the run's
 * structured output when it has one, else its text parsed as JSON. Fails naming the first
 * problem (not JSON, the first field that does not fit).
 * @throws TypeError for a schema that is neither, or a JSON Schema zod cannot read.
 */
export function outputSchema(
  schema: z.ZodType | Record<string, unknown>,
  options: OutputSchemaOptions = {},
): Scorer {
  const checked = toZod(schema);
  return {
    name: options.name ?? 'schema',
    score: ({ outcome }) => {
      let value = outcome.structured;
      if (value === undefined) {
        if (outcome.output === undefined) {
          return { score: 0, pass: false, reason: 'no output to check' };
        }
        try {
          value = JSON.parse(outcome.output);
        } catch (error) {
          const why = (error as Error).message;
          return { score: 0, pass: false, reason: `the output is not JSON (${why})` };
        }
      }
      const parsed = checked.safeParse(value);
      if (parsed.success) return { score: 1, pass: true };
      const issue = parsed.error.issues[0]!;
      const at = issue.path.length ? issue.path.join('.') : '(the output)';
      return { score: 0, pass: false, reason: `${at}: ${issue.message}` };
    },
  };
}

function toZod(schema: unknown): z.ZodType {
  if (isZod(schema)) return schema;
  if (!isObject(schema)) {
    throw new TypeError('outputSchema(): schema must be a zod schema or a JSON Schema object');
  }
  try {
    return z.fromJSONSchema(schema);
  } catch (error) {
    throw new TypeError(
      `outputSchema(): schema is not a JSON Schema zod reads: ${(error as Error).message}`,
      { cause: error },
    );
  }
}
