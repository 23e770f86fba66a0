import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { finished, spawnTsx } from './helpers/child-process.js';
import { TempStores } from './helpers/temp-store.js';

const WORKER = fileURLToPath(new URL('./helpers/sub-agent-crash-worker.ts', import.meta.url));
const temps = new TempStores();
afterEach(() => temps.cleanupAll());

/** Runs the worker once; `killed` when it died by its own SIGKILL. */
async function worker(dir: string, mode: 'start' | 'resume', kill = '') {
  const done = await finished(spawnTsx(WORKER, [dir, join(dir, 'log'), mode], { KILL: kill }));
  if (done.signal === 'SIGKILL') return { killed: true, result: undefined };
  const line = done.stdout.split('\n').find((l) => l.startsWith('result '));
  if (done.code !== 0 || !line) throw new Error(`worker failed (${done.code}): ${done.stderr}`);
  return { killed: false, result: JSON.parse(line.slice('result '.length)) as unknown };
}

const logLines = async (dir: string) =>
  (await readFile(join(dir, 'log'), 'utf8')).trim().split('\n');

/** Log lines without their pid: the same line twice means the same step ran twice. */
const withoutPid = (lines: string[]) => lines.map((l) => l.slice(0, l.lastIndexOf(' ')));

describe('sub-agents survive SIGKILL', () => {
  it('a process killed while a grandchild runs its tool and while a child calls its model: the resumes finish them without re-running journaled steps', async () => {
    const reference = await temps.folder();
    const ref = await worker(reference, 'start');
    expect(ref.killed).toBe(false);

    const dir = await temps.folder();
    // killed in the grandchild's first tool call (after its side effect, before its journal)
    expect((await worker(dir, 'start', 'leaf-tool:1')).killed).toBe(true);
    // killed in the child's third model call (after the first leaf finished)
    expect((await worker(dir, 'resume', 'mid-model:3')).killed).toBe(true);
    const last = await worker(dir, 'resume');
    expect(last.killed).toBe(false);
    expect(last.result).toEqual(ref.result);

    const lines = withoutPid(await logLines(dir));
    const refLines = withoutPid(await logLines(reference));
    const count = (ls: string[], line: string) => ls.filter((l) => l === line).length;
    for (const line of new Set(lines)) {
      const extra = count(lines, line) - count(refLines, line);
      // only the two steps in flight at a kill ran again: the grandchild's tool call (same
      // call id, its idempotency key) and the child's model call
      if (line.startsWith('leaf-tool ') && line.endsWith(' leaf-0')) expect(extra).toBe(1);
      else if (line === 'mid-model 5') expect(extra).toBe(1);
      else expect(extra, line).toBe(0);
    }
    expect(new Set(lines)).toEqual(new Set(refLines));
  });
});
