import { randomBytes } from 'node:crypto';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Agent, ModelError, openaiEmbedder } from '../../src/index.js';
import { REDACTED } from '../../src/errors/redact-deep.js';
import { ScriptedModel, scriptedEmbedder } from '../../src/testing.js';
import type { ChatCompletionsServer } from '../helpers/chat-completions-server.js';
import { embedWith, inputsOf, startEmbeddingsServer } from '../helpers/embeddings-server.js';
import { openTempStore, type TempStore } from '../helpers/temp-store.js';

let server: ChatCompletionsServer;
let level: TempStore;
beforeEach(async () => {
  server = await startEmbeddingsServer();
  level = await openTempStore();
});
afterEach(async () => {
  await server.close();
  await level.cleanup();
});

/** The text of every file under `dir`, as latin1 (bytes kept one to one). */
async function filesText(dir: string): Promise<string> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  const files = entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
  const texts = await Promise.all(files.map((f) => readFile(f, 'latin1')));
  return texts.join('\n');
}

describe('openaiEmbedder as an agent memory embedder', () => {
  it('recalls across sessions through the embeddings API; its tokens and cost count in the run usage; its key is stored nowhere', async () => {
    const key = `sk-test-${randomBytes(16).toString('hex')}`;
    // the server embeds as the scripted embedder does, in 1,536 dimensions: shared words are near
    for (let i = 0; i < 4; i++) server.enqueue(embedWith(scriptedEmbedder({ dimensions: 1536 })));
    const embedder = openaiEmbedder({
      model: 'text-embedding-3-small', // 1,536 dimensions, $0.02 per million tokens
      apiKey: key,
      baseURL: server.baseURL,
      maxRetries: 0,
    });
    const model = new ScriptedModel(() => ({ text: 'Noted.' }), { recordCalls: true });
    const agent = new Agent({
      name: 'assistant',
      model,
      store: level.store,
      memory: { embedder, workingMemory: false, remember: false },
    });

    const first = await agent.run('I am allergic to peanuts', { sessionId: 's1', userId: 'ann' });
    const second = await agent.run('What am I allergic to?', { sessionId: 's2', userId: 'ann' });

    expect(server.requests.map(inputsOf)).toEqual([
      ['I am allergic to peanuts'],
      ['What am I allergic to?'],
    ]);
    expect(server.requests[0]?.headers.authorization).toBe(`Bearer ${key}`);
    const seen = JSON.stringify(model.calls[1]?.items);
    expect(seen).toContain('I am allergic to peanuts');
    expect(JSON.stringify(model.calls[0]?.items)).not.toContain('Memories from earlier');

    // the scripted model counts 10 input tokens a call; embedding adds the words embedded
    expect(first.usage).toMatchObject({ inputTokens: 10 + 5 });
    expect(second.usage).toMatchObject({ inputTokens: 10 + 5 });
    expect(first.usage.costUsd).toBe(0.0000001); // 5 tokens at $0.02 a million, the model free

    await level.store.close();
    const stored = await filesText(level.path);
    expect(stored).toContain('I am allergic to peanuts'); // the scan reads what was stored
    expect(stored).not.toContain(key);
  });

  it('an embeddings call that fails and echoes the key interrupts the run with a ModelError; the key is stored nowhere', async () => {
    const key = `sk-test-${randomBytes(16).toString('hex')}`;
    server.enqueue({ status: 401, error: `Incorrect API key provided: ${key}.` });
    const embedder = openaiEmbedder({
      model: 'text-embedding-3-small',
      apiKey: key,
      baseURL: server.baseURL,
      maxRetries: 0,
    });
    const model = new ScriptedModel(() => ({ text: 'Noted.' }));
    const agent = new Agent({
      name: 'assistant',
      model,
      store: level.store,
      memory: { embedder, workingMemory: false, remember: false },
    });
    const result = await agent.run('I am allergic to peanuts', { sessionId: 's1', userId: 'ann' });
    expect(result.interrupted).toBe(true);
    expect(result.error).toBeInstanceOf(ModelError);
    expect(result.error).toMatchObject({ status: 401, retryable: false });
    expect(result.error?.message).toContain(`Incorrect API key provided: ${REDACTED}`);
    expect(model.callCount).toBe(0); // recall comes before the model call
    expect(JSON.stringify(result.state)).not.toContain(key);

    await level.store.close();
    const stored = await filesText(level.path);
    expect(stored).toContain('I am allergic to peanuts');
    expect(stored).toContain(REDACTED); // the interrupted run's error, as stored
    expect(stored).not.toContain(key);
  });
});
