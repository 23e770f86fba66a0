import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { misplacedTestFiles, testFiles } from '../helpers/test-folders.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

describe('the test folders', () => {
  it('mirror src/: each test file sits in a folder of src/ or in a named folder', () => {
    expect(testFiles(join(root, 'test')).length).toBeGreaterThan(150);
    expect(misplacedTestFiles(join(root, 'test'), join(root, 'src'))).toEqual([]);
  });
});

describe('the test folder check itself', () => {
  let tree: string | undefined;
  afterEach(() => {
    if (tree) rmSync(tree, { recursive: true, force: true });
    tree = undefined;
  });
  const make = (files: string[]): string => {
    tree = mkdtempSync(join(tmpdir(), 'agentstate-test-folders-'));
    for (const file of files) {
      mkdirSync(dirname(join(tree, file)), { recursive: true });
      writeFileSync(join(tree, file), '');
    }
    return tree;
  };

  it('accepts a mirrored folder, a nested one and a named one', () => {
    const t = make([
      'src/persistence/kv/store.ts',
      'test/persistence/a.test.ts',
      'test/persistence/kv/b.test.ts',
      'test/docs/c.test.ts',
      'test/helpers/not-a-test.ts',
    ]);
    expect(misplacedTestFiles(join(t, 'test'), join(t, 'src'))).toEqual([]);
  });

  it('fails on a file at the top, in a folder src/ lacks, and in helpers/', () => {
    const t = make([
      'src/persistence/kv/store.ts',
      'test/flat.test.ts',
      'test/features/d.test.ts',
      'test/persistence/postgres/e.test.ts',
      'test/helpers/f.test.ts',
    ]);
    expect(misplacedTestFiles(join(t, 'test'), join(t, 'src')).sort()).toEqual([
      'features/d.test.ts',
      'flat.test.ts',
      'helpers/f.test.ts',
      'persistence/postgres/e.test.ts',
    ]);
  });
});
