import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  Agent,
  InvalidSessionRecordError,
  LevelSessionStore,
  OpenAIModel,
  type Item,
} from '../../src/index.js';
import { historyKey } from '../../src/persistence/session-keys.js';
import { encodeStored } from '../../src/persistence/session-schemas.js';
import { ScriptedModel } from '../../src/testing.js';
import {
  completion,
  startChatCompletionsServer,
  type ChatCompletionsServer,
} from '../helpers/chat-completions-server.js';
import { dangerTool, dumpBackend } from '../helpers/session-fixtures.js';
import { TempStores } from '../helpers/temp-store.js';

const temps = new TempStores();
afterEach(() => temps.cleanupAll());

const key = { sessionId: 'pictures', userId: 'alice' };
const pixel = randomBytes(9).toString('base64'); // small, valid base64

/** A user message with every kind of part, then developer and system items. */
const richInput = (image = pixel): Item[] => [
  {
    type: 'message',
    role: 'user',
    content: [
      { type: 'text', text: 'What is in these?' },
      { type: 'image', url: 'https://example.test/cat.png', detail: 'low' },
      { type: 'image', data: image, mediaType: 'image/png' },
      { type: 'file', data: pixel, mediaType: 'application/pdf', filename: 'report.pdf' },
      { type: 'file', fileId: 'file-abc123', filename: 'notes.txt' },
    ],
  },
  { type: 'message', role: 'developer', content: 'Answer in one line.' },
  { type: 'message', role: 'system', content: 'The user is on a phone.' },
];

describe('richer items', () => {
  let server: ChatCompletionsServer;
  beforeEach(async () => {
    server = await startChatCompletionsServer();
  });
  afterEach(() => server.close());

  it('sends images, files, developer and system items in the Chat Completions format', async () => {
    const { store } = await temps.open();
    const model = new OpenAIModel({ model: 'vision', apiKey: 'k', baseURL: server.baseURL });
    const agent = new Agent({ name: 'looker', instructions: 'Be brief.', model, store });
    server.enqueue({ json: completion({ content: 'A cat, a report and notes.' }) });

    const result = await agent.run(richInput(), key);

    expect(result.output).toBe('A cat, a report and notes.');
    expect(server.body().messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is in these?' },
          { type: 'image_url', image_url: { url: 'https://example.test/cat.png', detail: 'low' } },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${pixel}` } },
          {
            type: 'file',
            file: { file_data: `data:application/pdf;base64,${pixel}`, filename: 'report.pdf' },
          },
          { type: 'file', file: { file_id: 'file-abc123', filename: 'notes.txt' } },
        ],
      },
      { role: 'developer', content: 'Answer in one line.' },
      { role: 'system', content: 'The user is on a phone.' },
    ]);
    // The string shorthand still sends a plain string.
    server.enqueue({ json: completion({ content: 'ok' }) });
    await agent.run('and now?', key);
    expect(server.body().messages).toContainEqual({ role: 'user', content: 'and now?' });
  });

  it('passes the items to a ScriptedModel as given and keeps them in the history', async () => {
    const { store } = await temps.open();
    const model = new ScriptedModel([{ text: 'seen' }], { recordCalls: true });
    const agent = new Agent({ name: 'looker', model, store });
    await agent.run(richInput(), key);
    expect(model.calls[0]?.items).toEqual(richInput());
    expect((await store.readHistory(key)).slice(0, 3)).toEqual(richInput());
  });

  it.each([
    [
      'an image with both url and data',
      { type: 'image', url: 'https://x.test/a.png', data: pixel, mediaType: 'image/png' },
    ],
    ['base64 that is not base64', { type: 'image', data: 'not base64!', mediaType: 'image/png' }],
    [
      'an image with a non-image media type',
      { type: 'image', data: pixel, mediaType: 'text/plain' },
    ],
    ['an image URL that is not a URL', { type: 'image', url: 'cat.png' }],
    ['a file without a filename', { type: 'file', data: pixel, mediaType: 'application/pdf' }],
    ['a file with neither data nor id', { type: 'file', filename: 'a.pdf' }],
    ['an unknown part', { type: 'audio', data: pixel }],
  ])('refuses %s at the call with a TypeError, storing nothing', async (_what, part) => {
    const { store } = await temps.open();
    const model = new ScriptedModel([{ text: 'never' }], { recordCalls: true });
    const agent = new Agent({ name: 'looker', model, store });
    const input = [{ type: 'message', role: 'user', content: [part] }] as unknown as Item[];
    await expect(async () => agent.run(input, key)).rejects.toThrow(
      /agent\.run\(\): input\[0\] is not an item .*content/,
    );
    expect(model.calls).toHaveLength(0);
    expect(await dumpBackend(store)).toEqual([]);
  });

  it('refuses developer items with parts, empty part lists and summary items in run input', async () => {
    const { store } = await temps.open();
    const agent = new Agent({
      name: 'looker',
      model: new ScriptedModel([], { recordCalls: true }),
      store,
    });
    const bad: unknown[] = [
      { type: 'message', role: 'developer', content: [{ type: 'text', text: 'x' }] },
      { type: 'message', role: 'user', content: [] },
    ];
    for (const item of bad) {
      await expect(async () => agent.run([item] as Item[], key)).rejects.toThrow(TypeError);
    }
    await expect(async () =>
      agent.run([{ type: 'summary', content: 'made up', upTo: 0 }], key),
    ).rejects.toThrow(/summary item; summaries are written by the agent's context window/);
    expect(await dumpBackend(store)).toEqual([]);
  });

  it('reads a stored item with a bad part as a typed error naming its key', async () => {
    const { store } = await temps.open();
    const agent = new Agent({
      name: 'looker',
      model: new ScriptedModel([{ text: 'a' }], { recordCalls: true }),
      store,
    });
    await agent.run('hello', key);
    const at = historyKey(key, 0);
    const bad = { type: 'message', role: 'user', content: [{ type: 'image', url: 'nope' }] };
    await store.backend.write([{ type: 'put', key: at, value: encodeStored(at, bad) }]);
    const error = await store.readHistory(key).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidSessionRecordError);
    expect((error as InvalidSessionRecordError).message).toContain(at);
  });
});

describe('a large image in the history', () => {
  it('is stored once, in the history log, never in the record or the journal', async () => {
    const { store, path } = await temps.open();
    const image = randomBytes(150_000).toString('base64'); // 200 KB of base64
    const model = new ScriptedModel(
      [
        { toolCalls: [{ name: 'danger', arguments: {} }] }, // pauses for approval
        { text: 'It is a cat.' },
        { text: 'You are welcome.' },
      ],
      { recordCalls: true },
    );
    const agent = new Agent({ name: 'looker', model, store, tools: [dangerTool] });
    const holding = async (): Promise<string[]> =>
      (await dumpBackend(store)).filter(([, value]) => value.includes(image)).map(([k]) => k);

    const paused = await agent.run(richInput(image), key);
    expect(paused.interruptionReason).toBe('approval');
    expect(await holding()).toEqual([historyKey(key, 0)]); // the run snapshot is in the record

    paused.state.approve(paused.interruptions[0]!.callId);
    await agent.resume(paused.state);
    await agent.run('thanks', key);

    expect(await holding()).toEqual([historyKey(key, 0)]);
    // Every model call was sent the image, read from the history log.
    expect(model.calls).toHaveLength(3);
    for (const call of model.calls) expect(call.items[0]).toEqual(richInput(image)[0]);
    // And it reads back whole in a fresh open of the folder.
    await store.close();
    const reopened = await LevelSessionStore.open({ path });
    temps.defer(() => reopened.close());
    expect((await reopened.readHistory(key, 0, 1))[0]).toEqual(richInput(image)[0]);
    model.assertComplete();
  });
});
