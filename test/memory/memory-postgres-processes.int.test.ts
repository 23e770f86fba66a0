import { describe, expect, it } from 'vitest';
import { openMemory } from '../../src/index.js';
import { finished, spawnScript } from '../helpers/child-process.js';
import { MEMORY_USER as USER } from '../helpers/memory-fixtures.js';
import { usePostgres } from '../helpers/postgres-tests.js';

const pg = usePostgres();

describe('memory on PostgreSQL across processes', () => {
  it('two processes, each running several sessions of one user that update the working memory at once, lose nothing', async () => {
    const { store, schema, cleanup } = await pg.freshStore('memory_procs');
    try {
      const spec = `pg:${pg.url}#${schema}`;
      const sessions = 5;
      const runs = await Promise.all(
        ['a', 'b'].map(async (tag) =>
          finished(
            await spawnScript('test/helpers/memory-child.ts', [
              'sessions',
              spec,
              tag,
              String(sessions),
            ]),
          ),
        ),
      );
      const conflicts: number[] = [];
      for (const run of runs) {
        expect(run.stderr).toBe('');
        expect(run.code).toBe(0);
        const result = JSON.parse(run.stdout.replace(/^result /, '')) as {
          outputs: string[];
          conflicts: number;
        };
        expect(result.outputs).toEqual(Array(sessions).fill('ok'));
        conflicts.push(result.conflicts);
      }
      // the updates did overlap: some writes lost the version check and were applied again
      expect(conflicts[0]! + conflicts[1]!).toBeGreaterThan(0);
      const doc = await openMemory(store).workingMemory({ userId: USER });
      const lines = ['a', 'b'].flatMap((tag) =>
        Array.from({ length: sessions }, (_, i) => `${tag}-${i}`),
      );
      expect(doc?.version).toBe(lines.length);
      expect(String(doc?.content).split('\n').sort()).toEqual(lines.sort());
    } finally {
      await cleanup();
    }
  });
});
