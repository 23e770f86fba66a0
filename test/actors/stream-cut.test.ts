import { afterEach, describe, expect, it } from 'vitest';
import {
  Agent,
  ModelError,
  type Model,
  type ModelRequest,
  type ModelStreamEvent,
} from '../../src/index.js';
import { ScriptedModel } from '../../src/testing.js';
import { TempStores } from '../helpers/temp-store.js';

/**
 * A model stream that dies mid-answer (issue 30): what arrived is kept with the run's stored
 * error (`ModelError.partialText`, redacted like the error), the run is interrupted with reason
 * `error`, and the retry calls the model afresh with the same request.
 */
const temps = new TempStores();
afterEach(() => temps.cleanupAll());

/** Streams "The answer is " then fails with a 503; every later call answers in full. */
class CutModel implements Model {
  readonly name = 'cut';
  readonly requests: ModelRequest[] = [];
  private readonly full = new ScriptedModel(() => ({ text: 'The answer is 42.' }));
  generate(request: ModelRequest) {
    this.requests.push(request);
    return this.full.generate(request);
  }
  async *stream(request: ModelRequest): AsyncIterable<ModelStreamEvent> {
    if (this.requests.length > 0) {
      yield* this.full.stream(request);
      this.requests.push(request);
      return;
    }
    this.requests.push(request);
    yield { type: 'text_delta', delta: 'The answer ' };
    yield { type: 'text_delta', delta: 'is SECRET-1 ' };
    await Promise.resolve();
    throw new ModelError('connection reset mid-stream', { status: 503, retryable: true });
  }
}

describe('a model stream cut mid-answer', () => {
  it('keeps what arrived with the stored error; the retry asks again with the same request', async () => {
    const { store } = await temps.open();
    const model = new CutModel();
    const agent = new Agent({
      name: 'a',
      model,
      store,
      redact: (text) => text.replaceAll('SECRET-1', '[REDACTED]'),
    });
    const key = { sessionId: 'cut', userId: 'ann' };
    const stream = agent.stream('question', key);
    for await (const event of stream) void event;
    const result = await stream.result;
    expect(result.interruptionReason).toBe('error');
    const error = result.error as ModelError;
    expect(error).toBeInstanceOf(ModelError);
    expect(error).toMatchObject({
      status: 503,
      retryable: true,
      partialText: 'The answer is [REDACTED] ',
    });
    // Stored with the interrupted run (plain JSON), read back in any process.
    const view = await agent.runtimeFor(store).getSession(key);
    expect(view.runStatus?.error).toMatchObject({ partialText: 'The answer is [REDACTED] ' });
    expect(JSON.stringify(await store.load(key))).not.toContain('SECRET-1');

    const retried = await agent.resume(key.sessionId, { userId: key.userId });
    expect(retried.output).toBe('The answer is 42.');
    expect(model.requests).toHaveLength(2);
    expect(model.requests[1]!.items).toEqual(model.requests[0]!.items);
  });

  it('a call not streamed keeps no partial text', async () => {
    const model = new ScriptedModel([{ error: new ModelError('down', { status: 503 }) }]);
    const agent = new Agent({ name: 'a', model });
    const result = await agent.run('q');
    expect(result.interruptionReason).toBe('error');
    expect((result.error as ModelError).partialText).toBeUndefined();
  });
});
