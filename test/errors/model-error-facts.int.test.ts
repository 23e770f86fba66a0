import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Agent, LevelSessionStore, ModelError, OpenAIModel } from '../../src/index.js';
import { errorFromSerialized } from '../../src/errors/error-from-serialized.js';
import {
  completion,
  chatCompletionsServerPerTest,
  type Reply,
} from '../helpers/chat-completions-server.js';
import { runScript } from '../helpers/child-process.js';
import { TempStores } from '../helpers/temp-store.js';
import { transferAgent } from '../helpers/transfer-agent.js';
import { modelFailure } from '../helpers/model-failure.js';

const server = chatCompletionsServerPerTest();
const temps = new TempStores();
afterEach(() => temps.cleanupAll());

const rateLimited = (requestId: string): Reply => ({
  status: 429,
  error: 'Rate limit reached',
  headers: { 'x-request-id': requestId },
});
const facts = (e: unknown) => {
  const { status, requestId, retryable } = e as ModelError;
  return { status, requestId, retryable };
};

/** What `model.generate` itself throws for `reply`. */
async function generateFailure(reply: Reply): Promise<ModelError> {
  server.enqueue(reply);
  const model = new OpenAIModel({
    model: 'm',
    apiKey: 'k-test',
    baseURL: server.baseURL,
    maxRetries: 0,
  });
  const items = [{ type: 'message' as const, role: 'user' as const, content: 'hi' }];
  return model.generate({ items, tools: [] }).then(
    () => expect.fail('expected a rejection'),
    (error: unknown) => error as ModelError,
  );
}

describe('ModelError keeps its facts from the model to the result of agent.run', () => {
  it.each([
    ['429', rateLimited('req_429'), { status: 429, requestId: 'req_429', retryable: true }],
    [
      '503 told not to retry',
      { status: 503, error: 'Overloaded', headers: { 'x-should-retry': 'false' } },
      { status: 503, requestId: undefined, retryable: false },
    ],
    [
      '401',
      { status: 401, error: 'Bad key' },
      { status: 401, requestId: undefined, retryable: false },
    ],
  ] satisfies [string, Reply, ReturnType<typeof facts>][])(
    '%s',
    async (_label, reply, expected) => {
      const direct = await generateFailure(reply);
      expect(facts(direct)).toEqual(expected);

      const { store } = await temps.open();
      server.enqueue(reply);
      const model = new OpenAIModel({
        model: 'gpt-4.1',
        apiKey: 'k-test',
        baseURL: server.baseURL,
        maxRetries: 0,
      });
      const agent = new Agent({ name: 'a', model, store });
      const key = { sessionId: 's', userId: 'alice' };
      const thrown = await modelFailure(agent.run('hi', key));
      expect(facts(thrown)).toEqual(facts(direct));
      expect(thrown.runId).toBeDefined();
      // the cause, rebuilt from the stored run, is named after the SDK's error class
      expect((thrown.cause as Error).name).toBe((direct.cause as Error).constructor.name);
      expect((thrown.cause as Error).name).toMatch(
        /^(RateLimit|InternalServer|Authentication)Error$/,
      );

      // The stored (interrupted) run keeps them as plain JSON.
      const stored = (await agent.runtimeFor(store).getSession(key)).run?.context.error;
      expect(JSON.parse(JSON.stringify(stored))).toEqual(stored);
      expect(facts(errorFromSerialized(stored!))).toEqual(facts(direct));
    },
  );

  it('also after a restore in another process (child process), and in a reopened store', async () => {
    const direct = await generateFailure(rateLimited('req_after_restore'));
    const folder = await temps.folder();
    const path = join(folder, 'db');
    const store = await LevelSessionStore.open({ path });
    server.enqueue({
      json: completion({
        toolCalls: [{ id: 'call_1', name: 'transfer', arguments: '{"amount":5}' }],
      }),
    });
    const paused = await transferAgent(store, server.baseURL).run('pay 5', {
      sessionId: 'pay',
      userId: 'alice',
    });
    expect(paused).toMatchObject({ interrupted: true, interruptionReason: 'approval' });
    const stateFile = join(folder, 'state.json');
    await writeFile(stateFile, JSON.stringify(paused.state));
    await store.close();

    // The child restores the paused run, runs the tool, and its model call is rate limited.
    server.enqueue(rateLimited('req_after_restore'));
    const child = await runScript('test/helpers/model-error-process.ts', [
      path,
      server.baseURL,
      stateFile,
    ]);
    expect(child.stderr).toBe('');
    expect(child.code).toBe(0);
    const line = child.stdout.split('\n').find((l) => l.startsWith('FACTS '));
    expect(JSON.parse(line!.slice('FACTS '.length))).toEqual({
      model: true,
      code: 'MODEL_ERROR',
      ...facts(direct),
      cause: 'RateLimitError',
    });
    expect(server.body().messages).toContainEqual({
      role: 'tool',
      tool_call_id: 'call_1',
      content: 'transferred 5',
    });

    // This process reopens the folder with a fresh store and rebuilds the same facts.
    const reopened = await LevelSessionStore.open({ path });
    temps.defer(() => reopened.close());
    const agent = transferAgent(reopened, server.baseURL);
    const view = await agent.runtimeFor(reopened).getSession({ sessionId: 'pay', userId: 'alice' });
    expect(view.run?.context.interruption).toBe('error');
    const rebuilt = errorFromSerialized(view.run!.context.error!);
    expect(rebuilt).toBeInstanceOf(ModelError);
    expect(facts(rebuilt)).toEqual(facts(direct));
  }, 30_000);
});
