import { expect } from 'vitest';
import { ModelError, type RunResult } from '../../src/index.js';

/**
 * The ModelError of a run its failed model call interrupted: the run resolves, interrupted with
 * reason `error` and the typed error on the result (it is not over: resume or cancel it).
 */
export async function modelFailure(run: Promise<RunResult<unknown>>): Promise<ModelError> {
  const result = await run;
  expect(result).toMatchObject({ interrupted: true, interruptionReason: 'error' });
  expect(result.state.data).toMatchObject({ status: 'interrupted', interruptionReason: 'error' });
  expect(result.error).toBeInstanceOf(ModelError);
  return result.error as ModelError;
}
