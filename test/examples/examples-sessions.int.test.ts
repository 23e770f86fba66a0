import { afterEach, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { LevelSessionStore } from '../../src/index.js';
import { runTsx } from '../helpers/child-process.js';
import { alice, texts } from '../helpers/session-fixtures.js';
import { TempStores } from '../helpers/temp-store.js';

const EXAMPLE = 'examples/sessions.ts';
const temps = new TempStores();
afterEach(() => temps.cleanupAll());

function lines(stdout: string): string[] {
  return stdout.split('\n').map((l) => l.trim());
}

describe('examples/sessions.ts', () => {
  it('shows two processes, suspend/resume, a fork and a listing', async () => {
    const dir = join(await temps.folder(), 'db');
    const run = await runTsx(EXAMPLE, [], { AGENTSTATE_DIR: dir });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const out = lines(run.stdout);

    expect(out[0]).toMatch(/ScriptedModel \(offline/);
    expect(out).toContain(`Sessions are stored in LevelDB at ${dir}.`);
    const p1 = out.find((l) => l.startsWith('[process 1, pid'))!;
    const p2 = out.find((l) => l.startsWith('[process 2, pid'))!;
    const pid = (line: string) => Number(/pid (\d+)/.exec(line)?.[1]);
    expect(pid(p1)).not.toBe(pid(p2)); // really two processes
    expect(out.some((l) => /^\[process 1, pid \d+\] alice> Hi, I'm Alice\.$/.test(l))).toBe(true);
    expect(
      out.some((l) => /^\[process 2, pid \d+\] alice-chat> You said: "Hi, I'm Alice\."$/.test(l)),
    ).toBe(true);

    expect(out).toContain('alice-chat is suspended');
    expect(out).toContain('sending while suspended was refused: INVALID_SESSION_TRANSITION');
    expect(out).toContain('alice-chat is active again');

    expect(out).toContain('forked alice-chat-fork from alice-chat with 6 history items');
    expect(out).toContain('alice-chat> You said: "Let us plan a trip to Oslo."');
    expect(out).toContain('alice-chat-fork> You said: "Actually, make it Rome."');

    const listing = out.slice(out.indexOf("== alice's sessions =="));
    expect(listing.filter((l) => l.startsWith('- '))).toEqual([
      expect.stringMatching(/^- alice-chat: active, version \d+, 8 items, 4 turn\(s\)$/),
      expect.stringMatching(
        /^- alice-chat-fork: active, version \d+, 10 items, 2 turn\(s\), forked from alice-chat$/,
      ),
    ]);
    expect(out).toContain('Done.');

    // what it printed is what the folder holds
    const store = await LevelSessionStore.open({ path: dir });
    temps.defer(() => store.close());
    expect(texts(await store.readHistory(alice('alice-chat')))).toContain("Hi, I'm Alice.");
    expect((await store.load(alice('alice-chat-fork'))).parentId).toBe('alice-chat');
  });

  it('runs again on the same folder, and cleans up its own temp folder', async () => {
    const dir = join(await temps.folder(), 'db');
    expect((await runTsx(EXAMPLE, [], { AGENTSTATE_DIR: dir })).code).toBe(0);
    const again = await runTsx(EXAMPLE, [], { AGENTSTATE_DIR: dir });
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('(removed session alice-chat left by an earlier run)');
    expect(again.stdout).toContain('forked alice-chat-fork from alice-chat with 6 history items');

    const own = await runTsx(EXAMPLE, [], { AGENTSTATE_DIR: undefined }); // unset: a temp folder
    expect(own.code).toBe(0);
    const folder = /stored in LevelDB at (\S+) \(a temp folder/.exec(own.stdout)?.[1];
    expect(folder).toBeDefined();
    expect(existsSync(folder!)).toBe(false);
  });
});
