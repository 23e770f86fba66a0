import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  Agent,
  AgentStateError,
  ApprovalCheckError,
  ERROR_CODES,
  InstructionsError,
  InvalidSchemaError,
  ToolkitError,
  tool,
  toolkit,
} from '../../src/index.js';
import { ScriptedModel } from '../../src/testing.js';
import { callTool } from '../helpers/session-fixtures.js';
import { TempStores } from '../helpers/temp-store.js';
import { modelFailure } from '../helpers/model-failure.js';

/** Every error carries a code from one documented list; no `UNKNOWN` (issue 8, points 4, 8). */
const temps = new TempStores();
afterEach(() => temps.cleanupAll());

const errorsPage = readFileSync(new URL('../../docs/reference/errors.md', import.meta.url), 'utf8');

async function failure(promise: Promise<unknown>): Promise<AgentStateError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AgentStateError);
  expect(ERROR_CODES).toContain((error as AgentStateError).code);
  return error as AgentStateError;
}

describe('error codes', () => {
  it('docs/reference/errors.md lists exactly the exported set of codes', () => {
    const listed = [...errorsPage.matchAll(/^\|\s*`([A-Z_]+)`\s*\|/gm)].map((m) => m[1]);
    expect(listed.sort()).toEqual([...ERROR_CODES].sort());
    expect(new Set(ERROR_CODES).size).toBe(ERROR_CODES.length);
    expect(ERROR_CODES).not.toContain('UNKNOWN');
  });

  it('a throwing needsApproval fails the run with APPROVAL_CHECK_FAILED, stored as such', async () => {
    const { store } = await temps.open();
    const risky = tool({
      name: 'risky',
      description: 'Risky',
      parameters: z.object({}),
      needsApproval: () => {
        throw new TypeError('policy service down');
      },
      execute: () => 'ran',
    });
    const model = new ScriptedModel([callTool('risky')]);
    const agent = new Agent({ name: 'a', model, store, tools: [risky] });
    const error = await failure(agent.run('go', { sessionId: 's' }));
    expect(error.code).toBe('APPROVAL_CHECK_FAILED');
    expect(error.message).toContain('policy service down');
    const view = await agent.runtimeFor(store).getSession('s');
    expect(view.lastRun?.error?.code).toBe('APPROVAL_CHECK_FAILED');
    expect(new ApprovalCheckError('t', new Error('x')).code).toBe('APPROVAL_CHECK_FAILED');
  });

  it('a model that throws a plain error interrupts the run with MODEL_ERROR', async () => {
    const model = new ScriptedModel([{ error: new TypeError('socket hang up') }]);
    const error = await modelFailure(new Agent({ name: 'a', model }).run('go'));
    expect(error.code).toBe('MODEL_ERROR');
  });

  it('toolkit and instructions failures are typed', async () => {
    const broken = toolkit({
      name: 'crm',
      create: () => {
        throw new Error('no connection');
      },
    });
    const model = new ScriptedModel([{ text: 'hi' }]);
    const kitError = await failure(new Agent({ name: 'a', model, toolkits: [broken] }).run('go'));
    expect(kitError).toBeInstanceOf(ToolkitError);
    expect(kitError).toMatchObject({ code: 'TOOLKIT_FAILED' });
    expect(kitError.message).toContain('crm');

    const instructions = () => {
      throw new Error('template missing');
    };
    const insError = await failure(new Agent({ name: 'a', model, instructions }).run('go'));
    expect(insError).toBeInstanceOf(InstructionsError);
    expect(insError.code).toBe('INSTRUCTIONS_FAILED');
  });

  it('a schema without a JSON form is INVALID_SCHEMA, at tool() and for an outputType', async () => {
    expect(() =>
      tool({
        name: 'when',
        description: 'Dates',
        parameters: z.object({ at: z.date() }),
        execute: () => 'ok',
      }),
    ).toThrow(InvalidSchemaError);
    const model = new ScriptedModel([{ text: '{}' }]);
    const agent = new Agent({ name: 'a', model, outputType: z.object({ at: z.date() }) });
    const error = await failure(agent.run('go'));
    expect(error).toBeInstanceOf(InvalidSchemaError);
    expect(error.code).toBe('INVALID_SCHEMA');
  });
});
