import { InvalidSchemaError } from '../errors/run-errors.js';

/**
 * Runs a zod-to-JSON-Schema conversion for what the model is shown. A schema with no JSON form
 * (a `z.date()`, a transform, ...) raises `InvalidSchemaError` naming `what`.
 */
export function jsonSchemaOf(
  what: string,
  convert: () => Record<string, unknown>,
): Record<string, unknown> {
  try {
    return convert();
  } catch (error) {
    throw new InvalidSchemaError(what, error);
  }
}
