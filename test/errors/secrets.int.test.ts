import { randomBytes } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { inspect } from 'node:util';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { REDACTED, redactDeep, redactSecrets } from '../../src/errors/redact-deep.js';
import { ModelError } from '../../src/errors/run-errors.js';
import type { ModelRequest } from '../../src/models/model.js';
import { OpenAIModel } from '../../src/models/openai-model.js';
import {
  collect,
  completion,
  chatCompletionsServerPerTest,
} from '../helpers/chat-completions-server.js';
import { runScript } from '../helpers/child-process.js';
import { TempStores } from '../helpers/temp-store.js';

const server = chatCompletionsServerPerTest();
const temps = new TempStores();
afterEach(() => temps.cleanupAll());

const newKey = () => `sk-test-${randomBytes(16).toString('hex')}`;
const ask: ModelRequest = { items: [{ type: 'message', role: 'user', content: 'hi' }], tools: [] };

/** The error `promise` rejects with. */
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => expect.fail('expected a rejection'),
    (error: unknown) => error as ModelError,
  );

/** Everything a log line could show of an error: inspected in full (hidden fields, causes) and as JSON. */
const shown = (error: unknown) =>
  `${inspect(error, { showHidden: true, depth: null })}\n${JSON.stringify(error)}`;

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(
    entries.map(async (e) =>
      e.isDirectory() ? filesUnder(join(dir, e.name)) : [join(dir, e.name)],
    ),
  );
  return nested.flat();
}

describe('redactDeep', () => {
  it('scrubs message, stack, cause chain, nested fields and credential headers, keeping types', () => {
    const secret = 'hunter2-secret';
    const inner = Object.assign(new TypeError(`inner ${secret}`), { body: { detail: [secret] } });
    const outer = new ModelError(`outer ${secret}`, {
      status: 401,
      retryable: false,
      cause: inner,
    });
    Object.assign(outer, { headers: new Headers({ authorization: 'Bearer other-token' }) });
    const copy = redactDeep(outer, redactSecrets([secret]));
    expect(copy).toBeInstanceOf(ModelError);
    expect(copy).toMatchObject({ status: 401, retryable: false, code: 'MODEL_ERROR' });
    expect(copy.message).toBe(`outer ${REDACTED}`);
    expect(copy.cause).toBeInstanceOf(TypeError);
    expect(shown(copy)).not.toContain(secret);
    expect(shown(copy)).not.toContain('other-token');
    expect(outer.message).toContain(secret); // the original is left alone
  });

  it('ignores secrets too short to mean anything', () => {
    expect(redactSecrets(['ab', '', undefined, null])('abc')).toBe('abc');
  });
});

describe('OpenAIModel keeps its key out of errors', () => {
  it('a 401 that echoes the key: message, stack, cause, body and JSON are scrubbed', async () => {
    const key = newKey();
    server.enqueue({
      status: 401,
      error: `Incorrect API key provided: ${key}.`,
      headers: { 'x-request-id': 'req_401' },
    });
    const model = new OpenAIModel({ model: 'gpt-4o', apiKey: key, baseURL: server.baseURL });
    const error = await failure(model.generate(ask));
    expect(server.requests[0]?.headers.authorization).toBe(`Bearer ${key}`);
    expect(error).toBeInstanceOf(ModelError);
    expect(error).toMatchObject({ status: 401, requestId: 'req_401', retryable: false });
    expect(error.message).toContain(`Incorrect API key provided: ${REDACTED}`);
    expect(error.cause).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(shown(error)).not.toContain(key);
    expect(JSON.stringify(error.toJSON())).not.toContain(key);
  });

  it('scrubs a streamed error and the credential headers of a given client', async () => {
    const token = `gw-${randomBytes(12).toString('hex')}`;
    const client = new OpenAI({
      apiKey: 'unused-placeholder',
      baseURL: server.baseURL,
      maxRetries: 0,
      defaultHeaders: { Authorization: `Bearer ${token}` },
    });
    server.enqueue({ status: 403, error: `Gateway refused Bearer ${token}` });
    const model = new OpenAIModel({ model: 'm', client });
    const error = await failure(collect(model.stream(ask)));
    expect(server.requests[0]?.headers.authorization).toBe(`Bearer ${token}`);
    expect(error).toMatchObject({ status: 403, retryable: false });
    expect(shown(error)).not.toContain(token);
  });

  it('a run through Agent, LevelDB and the SDK log leaks the key nowhere (child process)', async () => {
    const key = newKey();
    const canary = `canary-${randomBytes(6).toString('hex')}`;
    const path = join(await temps.folder(), 'db');
    const child = await runScript('test/helpers/secrets-process.ts', [path, canary], {
      AGENTSTATE_TEST_KEY: key,
      OPENAI_LOG: 'debug', // the SDK then logs requests, failed responses and bad chunks
    });
    expect(child.stderr).not.toContain('FAILED');
    expect(child.code).toBe(0);
    const lines = child.stdout.split('\n');
    const line = (prefix: string) => lines.find((l) => l.startsWith(prefix))?.slice(prefix.length);

    // Each failure happened, as the kind of error it is, with the key removed where it was.
    const facts = (label: string) => JSON.parse(line(`ERROR ${label} `) ?? 'null') as ModelError;
    expect(facts('401')).toMatchObject({ code: 'MODEL_ERROR', status: 401 });
    expect(facts('401').message).toContain(`Incorrect API key provided: ${REDACTED}`);
    expect(facts('500')).toMatchObject({ code: 'MODEL_ERROR', status: 500 });
    expect(facts('500').message).toContain(REDACTED);
    expect(facts('timeout').message).toMatch(/timed out/);
    expect(facts('broken-json')).toMatchObject({ code: 'MODEL_ERROR' });
    expect(facts('broken-json').message).toContain('not valid JSON');
    expect(facts('stream-error').message).toContain(`Key ${REDACTED} was revoked`);
    expect(line('VIEW 401 ')).toContain(REDACTED); // the interrupted run's error as stored
    expect(line('RESULT 401 ')).toContain(REDACTED); // and in its RunState
    expect(JSON.parse(line('EVIDENCE ') ?? '{}')).toEqual({ requests: 6, sent: true });
    // The SDK did log the unparsable chunk (it holds the key), scrubbed by the adapter's logger.
    expect(child.stderr).toContain('Could not parse message into JSON');
    expect(child.stderr).toContain('UnpricedModelWarning');

    // Nothing printed, warned, logged or stored holds the key.
    expect(child.stdout).not.toContain(key);
    expect(child.stderr).not.toContain(key);
    const state = line('STATE ');
    expect(state).toContain(canary);
    expect(state).not.toContain(key);
    const files = await filesUnder(path);
    const contents = await Promise.all(files.map((f) => readFile(f)));
    // The folder is greppable: what was stored in plain text (the canary inputs) is found.
    expect(contents.some((c) => c.includes(canary))).toBe(true);
    const leaking = files.filter((_, i) => contents[i]?.includes(key));
    expect(leaking).toEqual([]);
  }, 30_000);

  it('sends the output-token limit as max_completion_tokens', async () => {
    server.enqueue(
      { json: completion({ content: 'ok' }) },
      { json: completion({ content: 'ok' }) },
    );
    const model = new OpenAIModel({ model: 'm', apiKey: newKey(), baseURL: server.baseURL });
    await model.generate({ ...ask, maxOutputTokens: 321 });
    expect(server.body().max_completion_tokens).toBe(321);
    await model.generate(ask);
    expect(server.body()).not.toHaveProperty('max_completion_tokens');
  });
});
