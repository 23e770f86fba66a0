import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import base, { INTEGRATION_TIER, UNIT_TIER } from '../../vitest.config.js';
import unit from '../../vitest.unit.config.js';
import { testFiles } from '../helpers/test-folders.js';
import { testNeeds } from '../helpers/test-needs.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** The files whose name says the wrong tier, with what they need and through which imports. */
function wrongTier(repo: string): string[] {
  return testFiles(join(repo, 'test')).flatMap((file) => {
    const needs = testNeeds(repo, join(repo, 'test', file));
    if (file.endsWith('.int.test.ts')) {
      return needs.length === 0 ? [`${file}: needs nothing, so it is a unit file`] : [];
    }
    return needs.map(({ need, via }) => `${file}: needs ${need} (${via.join(' > ')})`);
  });
}

describe('the test tiers', () => {
  it('a unit file needs no package build, PostgreSQL, Chromium or child process; an *.int.test.ts file needs one', () => {
    expect(
      testFiles(join(root, 'test')).filter((f) => f.endsWith('.int.test.ts')).length,
    ).toBeGreaterThan(30);
    expect(wrongTier(root)).toEqual([]);
  });

  it('npm run test:unit runs the unit files without the global setup, npm test both tiers with it for the integration files only', () => {
    expect(unit.test).toMatchObject(UNIT_TIER);
    expect(unit.test?.globalSetup).toBeUndefined();
    expect(base.test?.globalSetup).toBeUndefined();
    const projects = base.test?.projects as { test: Record<string, unknown> }[];
    expect(projects.map((p) => p.test)).toEqual([
      { name: 'unit', ...UNIT_TIER },
      { name: 'integration', ...INTEGRATION_TIER },
    ]);
  });
});

/** `inject('name')`, written so that this file's own text asks for nothing. */
const asked = (name: string) => ['inject', `('${name}')`].join('');

describe('the test tier check itself', () => {
  let tree: string | undefined;
  afterEach(() => {
    if (tree) rmSync(tree, { recursive: true, force: true });
    tree = undefined;
  });
  const make = (files: Record<string, string>): string => {
    tree = mkdtempSync(join(tmpdir(), 'agentstate-test-tiers-'));
    for (const [file, text] of Object.entries(files)) {
      mkdirSync(dirname(join(tree, file)), { recursive: true });
      writeFileSync(join(tree, file), text);
    }
    return tree;
  };

  it('fails on a unit file that reaches a need through a helper, by name or through scripts/', () => {
    const repo = make({
      'test/a/spawns.test.ts': "import { run } from '../helpers/child.js';\n",
      'test/helpers/child.ts':
        "import { spawn } from 'node:child_process';\nexport const run = spawn;\n",
      'test/a/database.test.ts': `import { inject } from 'vitest';\nconst url = ${asked('postgresUrl')};\n`,
      'test/a/browser.test.ts': "import { open } from '../../scripts/browser.js';\n",
      'scripts/browser.ts': "export { chromium as open } from 'playwright-core';\n",
      'test/a/built.test.ts': 'await import' + "('../../scripts/package-build.js');\n",
      'scripts/package-build.ts': 'export {};\n',
    });
    expect(wrongTier(repo).sort()).toEqual([
      'a/browser.test.ts: needs Chromium (test/a/browser.test.ts > scripts/browser.ts > playwright-core)',
      'a/built.test.ts: needs the built package (test/a/built.test.ts > scripts/package-build.ts)',
      `a/database.test.ts: needs PostgreSQL (test/a/database.test.ts > ${asked('postgresUrl')})`,
      'a/spawns.test.ts: needs child processes (test/a/spawns.test.ts > test/helpers/child.ts > node:child_process)',
    ]);
  });

  it('fails on an integration file that needs nothing, and does not look into src/', () => {
    const repo = make({
      'test/a/idle.int.test.ts': "import { x } from '../../src/x.js';\n",
      'src/x.ts': "import { spawn } from 'node:child_process';\nexport const x = spawn;\n",
      'test/a/plain.test.ts': "import { x } from '../../src/x.js';\n",
    });
    expect(wrongTier(repo)).toEqual(['a/idle.int.test.ts: needs nothing, so it is a unit file']);
  });

  it("counts exploreCrashes' option processes (a child process per point) as a need", () => {
    const option = ['processes', ": { module: 'agent.ts' }"].join('');
    const repo = make({
      'test/a/explore.test.ts': `await exploreCrashes(agent, scenario, { ${option} });\n`,
      'test/a/explore.int.test.ts': `await exploreCrashes(agent, scenario, { ${option} });\n`,
    });
    expect(wrongTier(repo)).toEqual([
      'a/explore.test.ts: needs child processes (test/a/explore.test.ts > exploreCrashes({ processes }))',
    ]);
  });
});
