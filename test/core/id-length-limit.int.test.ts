import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Agent, IdTooLongError, LevelSessionStore, MAX_ID_LENGTH } from '../../src/index.js';
import { startInspector, type InspectorHandle } from '../../src/inspect.js';
import { buildCli, runCli, type BuiltCli } from '../helpers/cli-fixtures.js';
import { echoModel, dumpBackend } from '../helpers/session-fixtures.js';
import { inspectorClient } from '../helpers/inspector-client.js';
import { startChatServer, type ChatServer } from '../helpers/chat-server.js';
import { TempStores } from '../helpers/temp-store.js';

/** One id length limit, typed, at every entry: the API, HTTP, the inspector, the CLI. */
const tooLong = 'x'.repeat(MAX_ID_LENGTH + 1);
const longest = 'y'.repeat(MAX_ID_LENGTH);

const temps = new TempStores();
afterEach(() => temps.cleanupAll());

describe('the API', () => {
  it('a session id, user id or call id over MAX_ID_LENGTH is IdTooLongError (ID_TOO_LONG), nothing stored; the longest allowed runs', async () => {
    expect(MAX_ID_LENGTH).toBe(256);
    const { store } = await temps.open();
    const agent = new Agent({ name: 'a', model: echoModel(), store });
    const before = await dumpBackend(store);
    for (const call of <(() => Promise<unknown>)[]>[
      () => agent.run('hi', { sessionId: tooLong }),
      () => agent.run('hi', { sessionId: 's', userId: tooLong }),
      () => agent.approve('s', tooLong),
      () => agent.resume(tooLong),
      () => store.load({ sessionId: tooLong }),
    ]) {
      const error = await Promise.resolve()
        .then(call)
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(error).toBeInstanceOf(IdTooLongError);
      expect(error).toMatchObject({ code: 'ID_TOO_LONG' });
    }
    expect(await dumpBackend(store)).toEqual(before);
    await agent.run('hi', { sessionId: longest, userId: longest });
    expect((await store.load({ sessionId: longest, userId: longest })).sessionId).toBe(longest);
  });
});

describe('HTTP', () => {
  let chat: ChatServer;
  afterEach(() => chat.close());

  it('an id over the limit in a path or a body is 400 ID_TOO_LONG, nothing stored', async () => {
    chat = await startChatServer();
    const before = await dumpBackend(chat.temp.store);
    const posts: [string, unknown][] = [
      [`/api/sessions/${tooLong}/messages`, { text: 'hi' }],
      [
        '/api/chat',
        {
          id: tooLong,
          messages: [{ id: 'm', role: 'user', parts: [{ type: 'text', text: 'hi' }] }],
        },
      ],
      [
        '/api/agui',
        { threadId: tooLong, runId: 'r', messages: [{ id: 'm', role: 'user', content: 'hi' }] },
      ],
      [
        '/api/agui',
        { threadId: 't', runId: tooLong, messages: [{ id: 'm', role: 'user', content: 'hi' }] },
      ],
      ['/api/sessions/s1/approvals', { callId: tooLong, approved: true }],
    ];
    for (const [path, body] of posts) {
      const res = await chat.as('alice', path, { method: 'POST', body: JSON.stringify(body) });
      const answer = (await res.json()) as { error: { code: string } };
      expect({ path: path.slice(0, 40), status: res.status, code: answer.error.code }).toEqual({
        path: path.slice(0, 40),
        status: 400,
        code: 'ID_TOO_LONG',
      });
    }
    const history = await chat.as('alice', `/api/sessions/${tooLong}/messages`);
    expect(history.status).toBe(400);
    expect(await dumpBackend(chat.temp.store)).toEqual(before);
    expect(chat.model.callCount).toBe(0);
  });
});

describe('the inspector', () => {
  let inspector: InspectorHandle | undefined;
  afterEach(async () => {
    await inspector?.close();
  });

  it('a fork into a 60,000-character session id is 400 ID_TOO_LONG, nothing stored', async () => {
    const { store } = await temps.open();
    const agent = new Agent({ name: 'a', model: echoModel(), store });
    await agent.run('hi', { sessionId: 'src', userId: 'alice' });
    inspector = await startInspector({ runtime: agent.runtimeFor(store), userId: 'alice' });
    const client = inspectorClient(inspector);
    const before = await dumpBackend(store);
    for (const [path, body] of [
      ['/api/sessions/src/fork', { newId: 'z'.repeat(60_000) }],
      ['/api/sessions/src/fork', { newId: tooLong }],
      [`/api/sessions/${tooLong}/fork`, {}],
      ['/api/sessions/src/approve', { callId: tooLong }],
    ] as const) {
      const answer = await client.post(path, body);
      expect({ path: path.slice(0, 30), status: answer.status, json: answer.json }).toMatchObject({
        path: path.slice(0, 30),
        status: 400,
        json: { error: { code: 'ID_TOO_LONG' } },
      });
    }
    expect(await dumpBackend(store)).toEqual(before);
    const read = await client.get(`/api/sessions/${tooLong}`);
    expect(read.status).toBe(400);
  });
});

describe('the command line', () => {
  let cli: BuiltCli;
  let work: string;
  beforeAll(async () => {
    cli = await buildCli();
    work = await mkdtemp(join(tmpdir(), 'agentstate-ids-'));
    const store = await LevelSessionStore.open({ path: join(work, 'db') });
    await new Agent({ name: 'a', model: echoModel(), store }).run('hi', { sessionId: 'src' });
    await store.close();
  }, 240_000);
  afterAll(() => rm(work, { recursive: true, force: true }));

  it('an id over the limit is a usage error (exit 2) naming ID_TOO_LONG, nothing stored', async () => {
    const db = join(work, 'db');
    for (const args of [
      ['sessions', 'fork', 'src', tooLong],
      ['sessions', 'show', tooLong],
      ['sessions', 'list', '--user', tooLong],
    ]) {
      const run = await runCli(cli, [...args, '--db', db]);
      expect({ args: args.slice(0, 2), code: run.code }).toEqual({
        args: args.slice(0, 2),
        code: 2,
      });
      expect(run.stderr).toContain('ID_TOO_LONG');
    }
    const list = await runCli(cli, ['sessions', 'list', '--json', '--db', db]);
    expect(list.stdout).not.toContain(tooLong);
  });
});
