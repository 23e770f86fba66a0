import { afterEach, describe, expect, it } from 'vitest';
import { finished, spawnScript } from '../../helpers/child-process.js';
import { JsonLineChild } from '../../helpers/json-line-child.js';
import { useOwnPostgres } from '../../helpers/postgres-tests.js';

/**
 * Issue 39: `await store.close()` settles in every case, checked in real processes (a
 * top-level await that never settles ends the process with code 13, before the line after
 * it is printed). A server of the file's own: one case restarts it.
 */
const pgt = useOwnPostgres();

const lines = (stdout: string): unknown[] =>
  stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as unknown);

describe('PostgresSessionStore.close() settles (real processes)', () => {
  const children: JsonLineChild[] = [];
  afterEach(async () => {
    for (const child of children.splice(0)) await child.stop();
  });
  for (const [kind, when] of [
    ['run', 'right after a run, with the default listenLingerMs'],
    ['watching', 'with a session watch still open'],
    ['linger', 'during the LISTEN linger a stopped watch left'],
  ] as const) {
    it(`settles ${when}: the line after it is printed, exit code 0`, async () => {
      const schema = pgt.schema(`close_${kind}`);
      const child = await finished(
        await spawnScript('test/helpers/pg-close-child.ts', [pgt.url, schema, kind]),
      );
      expect(child.stderr).toBe('');
      expect(lines(child.stdout)).toEqual([{ event: 'ran', output: 'hi' }, { event: 'closed' }]);
      expect(child).toMatchObject({ code: 0, signal: null });
    });
  }

  it('settles after the server restarted during the run', async () => {
    const schema = pgt.schema('close_restart');
    const child = await JsonLineChild.start('test/helpers/pg-close-child.ts', [
      pgt.url,
      schema,
      'restart',
    ]);
    children.push(child);
    expect(await child.next('at-tool')).toEqual({ event: 'at-tool' });
    await pgt.cluster.restart();
    child.send('go');
    expect(await child.next('ran')).toEqual({ event: 'ran', output: 'hi' });
    expect(await child.next('closed')).toEqual({ event: 'closed' });
    expect(await child.exitCode()).toBe(0);
  });
});
