import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LevelSessionStore, openMemory } from '../../src/index.js';
import { runExample } from '../helpers/run-example.js';
import { TempStores } from '../helpers/temp-store.js';

const temps = new TempStores();
afterEach(() => temps.cleanupAll());

describe('examples/memory.ts', () => {
  it('keeps a fact in one process, recalls it in another session in a second process, then forgets alice', async () => {
    const dir = await temps.folder();
    const out = await runExample('memory.ts', dir);
    const lines = out.map((o) => o.line);
    const pidOf = (prefix: string) => out.find((o) => o.line.startsWith(prefix))?.pid;
    const told = pidOf('alice (chat-1)>');
    const asked = pidOf('alice (chat-2)>');
    expect(told && asked).toBeTruthy();
    expect(told).not.toBe(asked);
    expect(pidOf('This process exits now.')).toBe(told);
    expect(pidOf('What the model saw:')).toBe(asked);

    // session 1: the working memory updated once, the fact saved once, the message kept
    expect(lines).toContain('Working memory, version 1: "Allergy: peanuts"');
    expect(lines).toContain('Memory fact fact:chat-1:fact: "Alice is allergic to peanuts."');
    expect(lines).toContain('Memory message msg:chat-1:0: "I am allergic to peanuts."');

    // session 2: the request held the working memory and the recalled memories, with scores
    expect(lines).toContain('    | Allergy: peanuts');
    expect(lines.some((l) => l.includes('(version 1)'))).toBe(true);
    const recalled = lines.filter((l) => l.startsWith('    recalled '));
    expect(recalled).toEqual([
      expect.stringMatching(
        /^ {4}recalled 0\.\d\d fact from chat-1: "Alice is allergic to peanuts\."$/,
      ),
      expect.stringMatching(
        /^ {4}recalled 0\.\d\d message from chat-1: "I am allergic to peanuts\."$/,
      ),
    ]);
    const scores = recalled.map((l) => Number(/recalled (\S+)/.exec(l)![1]));
    expect(scores[0]).toBeGreaterThanOrEqual(scores[1]!);
    expect(scores[1]).toBeGreaterThanOrEqual(0.3); // the default threshold
    expect(lines).toContain(
      'assistant (chat-2)> Try apple slices with sunflower butter: no peanuts, as you told me before.',
    );

    // forgotten: nothing of alice is left in the folder's store
    expect(lines).toContain('Forgot alice: 3 memories, 1 working memory, 2 sessions.');
    expect(lines).toContain('Memories left: 0.');
    const store = await LevelSessionStore.open({ path: join(dir, 'db') });
    temps.defer(() => store.close());
    const memory = openMemory(store);
    expect((await memory.list({ userId: 'alice' })).memories).toEqual([]);
    expect(await memory.workingMemory({ userId: 'alice' })).toBeUndefined();
    expect((await store.list({ userId: 'alice' })).sessions).toEqual([]);
  });
});
