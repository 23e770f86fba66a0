import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent, LevelSessionStore, deleteSession, tool } from '../../src/index.js';
import { ScriptedModel } from '../../src/testing.js';
import { TempStores } from '../helpers/temp-store.js';

/**
 * Issue 40, "Erase means erased": a purged session's texts leave LevelDB's files (its log,
 * table files and manifest), not only its keys, without waiting for a compaction to reach them.
 */
const temps = new TempStores();
afterEach(() => temps.cleanupAll());

const erased = { sessionId: 'erased', userId: 'alice' };
const kept = { sessionId: 'kept', userId: 'alice' };

/**
 * The texts a session leaves: its message, the tool's argument and result, the reply. Letters
 * that share no three in a row with each other or with the stored JSON: LevelDB compresses its
 * table files (Snappy), which copies a repeated run of bytes, so only a text's first occurrence
 * in a block is sure to be whole.
 */
const secret = {
  message: 'tzwcknjgqmtbwgcj',
  argument: 'tchpfmpgwwfscppk',
  result: 'gnhwnnthzjvswdhz',
  reply: 'jzbdtnfjkttfvptn',
};
const keptTexts = {
  message: 'wkktjhhnmdhphkck',
  argument: 'hcwkjssvnnwkcrch',
  result: 'hnbnqrspwcxwmzvm',
  reply: 'xbwjzczqnfczwxzb',
};
const bySession = [secret, keptTexts];

/** Looks the note up (the model asks for it once), then answers. */
function taggedAgent(store: LevelSessionStore): Agent {
  const lookup = tool({
    name: 'lookup',
    description: 'Looks a note up',
    parameters: z.object({ query: z.string() }),
    execute: ({ query }) => bySession.find((t) => t.argument === query)?.result ?? 'none',
  });
  const model = new ScriptedModel((request) => {
    const said = request.items.find((i) => i.type === 'message' && i.role === 'user');
    const texts = bySession.find((t) => said?.type === 'message' && t.message === said.content);
    if (!texts) return { text: 'unknown' };
    if (!request.items.some((i) => i.type === 'tool_result')) {
      return { toolCalls: [{ name: 'lookup', arguments: { query: texts.argument } }] };
    }
    return { text: texts.reply };
  });
  return new Agent({ name: 'notes', model, store, tools: [lookup] });
}

/** The files of the LevelDB folder (every one: tables, log, manifest) holding any of `texts`. */
async function filesHolding(path: string, texts: readonly string[]): Promise<string[]> {
  const found: string[] = [];
  for (const name of await readdir(path)) {
    const bytes = await readFile(join(path, name));
    if (texts.some((text) => bytes.includes(text))) found.push(name);
  }
  return found;
}

describe('purge on LevelDB', () => {
  it("leaves none of the session's texts in the folder's files; the other sessions stay readable", async () => {
    const temp = await temps.open();
    const first = taggedAgent(temp.store);
    await first.run(secret.message, erased);
    await first.run(keptTexts.message, kept);
    await temp.store.close();
    // Reopened: LevelDB writes what its log held into a table file.
    const store = await LevelSessionStore.open({ path: temp.path });
    temps.defer(() => store.close());
    const tables = await filesHolding(temp.path, Object.values(secret));
    expect(tables.some((name) => /\.(ldb|sst)$/.test(name))).toBe(true);
    for (const text of Object.values(secret)) {
      expect(await filesHolding(temp.path, [text])).not.toEqual([]);
    }

    const agent = taggedAgent(store);
    await agent.runtimeFor(store).execute(erased, deleteSession({ purge: true }));
    expect(await filesHolding(temp.path, Object.values(secret))).toEqual([]);

    await store.close();
    expect(await filesHolding(temp.path, Object.values(secret))).toEqual([]);
    const reopened = await LevelSessionStore.open({ path: temp.path });
    temps.defer(() => reopened.close());
    await expect(reopened.load(erased)).rejects.toMatchObject({ code: 'SESSION_NOT_FOUND' });
    const history = await reopened.readHistory(kept);
    expect(JSON.stringify(history)).toContain(keptTexts.result);
    expect(JSON.stringify(history)).toContain(keptTexts.reply);
    const { entries } = await reopened.readAudit({ ...erased, kind: 'session', limit: 100 });
    expect(entries.map((e) => e.action)).toContain('purge');
  });
});
