import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCertificate } from '../../src/agent-check/parse-certificate.js';
import {
  ROOT,
  buildCli,
  runCli,
  writeAgentModule,
  type BuiltCli,
} from '../helpers/cli-fixtures.js';

let work: string;
let cli: BuiltCli;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'agentstate-cli-check-'));
  cli = await buildCli();
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

describe('agentstate check (the built command line)', () => {
  it('checks a built agent module: its approval-gated tool, as JSON', async () => {
    const module = await writeAgentModule(
      cli,
      join(cli.dir, `app-check-${process.pid}`),
      join(work, 'ran.txt'),
    );
    const run = await runCli(cli, ['check', module, '--format', 'json'], { cwd: work });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const cert = parseCertificate(run.stdout);
    expect(cert.tools.map((t) => [t.agentPath, t.tool, t.approval, t.withoutApproval])).toEqual([
      [['assistant'], 'danger', 'always', false],
    ]);
  });

  it('a TypeScript module without a loader is refused with exit 2, saying why', async () => {
    const run = await runCli(cli, ['check', join(ROOT, 'examples', 'agents', 'bills.ts')], {
      cwd: work,
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^agentstate: <module>: .*bills\.ts/);
  });
});
