import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseCertificate } from '../../src/agent-check/parse-certificate.js';
import { cliInProcess } from '../helpers/cli-in-process.js';

const EXAMPLES = fileURLToPath(new URL('../../examples/agents/', import.meta.url));
const BILLS = join(EXAMPLES, 'bills.ts');
const SUPPORT = join(EXAMPLES, 'support.ts');

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentstate-check-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A module in the temp folder with `source` (TypeScript, loaded in process by vitest). */
async function module(name: string, source: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, source);
  return path;
}

describe('agentstate check', () => {
  it('lists the bills example’s pay_bill: conditional (over $100), with its witness', async () => {
    const run = await cliInProcess(['check', BILLS, '--export', 'bills']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const line = run.stdout.split('\n').find((l) => l.startsWith('- **pay_bill**'));
    expect(line).toMatch(
      /^- \*\*pay_bill\*\* \(tool\) at bills: approval conditional \(needsApproval `.*amountUsd ?> ?100`\), reachable without approval\. Witness: bills: call pay_bill -> bills: pay_bill needs no approval -> bills: execute pay_bill$/,
    );
    // The module's one agent among its exports is the one checked, without --export.
    const found = await cliInProcess(['check', BILLS]);
    expect(found.code).toBe(0);
    expect(found.stdout).toBe(run.stdout);
  });

  it('lists each (tool, approval path) of the support example as JSON', async () => {
    const run = await cliInProcess(['check', SUPPORT, '--export', 'support', '--format', 'json']);
    expect(run.code).toBe(0);
    const cert = parseCertificate(run.stdout);
    const entries = cert.tools.map((t) => [
      t.agentPath.join(' > '),
      t.tool,
      t.approval,
      t.withoutApproval,
      t.gates,
    ]);
    expect(entries).toEqual([
      ['triage', 'ask_billing', 'never', true, []],
      ['triage', 'ask_shipping', 'never', true, []],
      ['triage > billing', 'refund', 'always', false, ['triage > billing: refund']],
      ['triage > shipping', 'track', 'never', true, []],
    ]);
    expect(cert.tools[2]!.witness.at(-1)).toBe('billing: execute refund');
    // --json (the global flag) is the same JSON.
    const again = await cliInProcess(['check', SUPPORT, '--export', 'support', '--json']);
    expect(again.stdout).toBe(run.stdout);
  });

  it('--baseline: refund without needsApproval exits 1 naming refund and a path; the same agent exits 0', async () => {
    const baseline = join(dir, 'cert.json');
    const written = await cliInProcess([
      'check',
      SUPPORT,
      '--export',
      'support',
      '--format',
      'json',
      '--out',
      baseline,
    ]);
    expect(written.code).toBe(0);
    expect(written.stdout).toMatch(
      /^wrote .*cert\.json: 4 tool\(s\) reachable, 3 without approval/,
    );
    expect(parseCertificate(await readFile(baseline, 'utf8')).agent).toBe('triage');

    const same = await cliInProcess([
      'check',
      SUPPORT,
      '--export',
      'support',
      '--baseline',
      baseline,
    ]);
    expect(same).toMatchObject({ code: 0, stdout: 'No change from the baseline.\n', stderr: '' });

    const loose = await module(
      'loose.ts',
      `import { supportAgent } from ${JSON.stringify(SUPPORT)};\nexport default supportAgent({ refundNeedsApproval: false });\n`,
    );
    const widened = await cliInProcess(['check', loose, '--baseline', baseline]);
    expect(widened.code).toBe(1);
    expect(widened.stdout).toContain(
      '- refund at triage > billing is now reachable without approval. Witness: triage: call ask_billing -> triage: ask_billing starts billing -> billing: call refund -> billing: execute refund',
    );
    expect(widened.stderr).toMatch(
      /^agentstate: 3 widening\(s\) of what agent "triage" can reach since .*cert\.json: refund at triage > billing is now reachable without approval;/,
    );

    const asJson = await cliInProcess(['check', loose, '--baseline', baseline, '--format', 'json']);
    expect(asJson.code).toBe(1);
    const changes = JSON.parse(asJson.stdout) as { widened: { kind: string; tool?: string }[] };
    expect(changes.widened.map((c) => `${c.kind} ${c.tool}`)).toEqual([
      'without-approval refund',
      'approval-relaxed refund',
      'gate-removed refund',
    ]);

    // The other way round narrows, and passes.
    const looseCert = join(dir, 'loose.json');
    await cliInProcess(['check', loose, '--format', 'json', '--out', looseCert]);
    const narrowed = await cliInProcess([
      'check',
      SUPPORT,
      '--export',
      'support',
      '--baseline',
      looseCert,
    ]);
    expect(narrowed.code).toBe(0);
    expect(narrowed.stdout).toContain(
      '## Narrowed\n\n- refund at triage > billing now always passes an approval',
    );
  });

  it('bad input is a typed error, exit 2, and nothing is written', async () => {
    const out = join(dir, 'out.json');
    const none = await module(
      'none.ts',
      'export const answer = 42;\nexport function helper() {}\n',
    );
    const noAgent = await cliInProcess(['check', none, '--out', out]);
    expect(noAgent.code).toBe(2);
    expect(noAgent.stderr).toContain(
      `agentstate: ${none} exports no Agent as its default export or as \`agent\`, and none among the others; give --export <name> (it exports: answer, helper)`,
    );
    const wrongExport = await cliInProcess([
      'check',
      SUPPORT,
      '--export',
      'supportAgent',
      '--out',
      out,
    ]);
    expect(wrongExport.code).toBe(2);
    expect(wrongExport.stderr).toContain(
      'exports no Agent named "supportAgent" (it exports: supportAgent, support; agents: support)',
    );
    const format = await cliInProcess([
      'check',
      BILLS,
      '--export',
      'bills',
      '--format',
      'xml',
      '--out',
      out,
    ]);
    expect(format.code).toBe(2);
    expect(format.stderr).toContain('--format must be json or markdown, got "xml"');
    const missing = await cliInProcess(['check', join(dir, 'nope.ts'), '--out', out]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('<module>: no module');

    const malformed = join(dir, 'bad.json');
    await writeFile(malformed, JSON.stringify({ version: 1, agent: 'triage', tools: 'all' }));
    const bad = await cliInProcess([
      'check',
      SUPPORT,
      '--export',
      'support',
      '--baseline',
      malformed,
      '--out',
      out,
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(
      /^agentstate: Invalid agent certificate at maxSubAgentDepth: .*\[INVALID_CERTIFICATE\]\n$/,
    );
    const notJson = join(dir, 'not.json');
    await writeFile(notJson, '# a markdown certificate\n');
    const text = await cliInProcess([
      'check',
      SUPPORT,
      '--export',
      'support',
      '--baseline',
      notJson,
      '--out',
      out,
    ]);
    expect(text.code).toBe(2);
    expect(text.stderr).toContain('Invalid agent certificate: not JSON');
    const absent = await cliInProcess([
      'check',
      SUPPORT,
      '--export',
      'support',
      '--baseline',
      join(dir, 'gone.json'),
    ]);
    expect(absent.code).toBe(2);
    expect(absent.stderr).toContain('--baseline: cannot read');
    const depth = await cliInProcess(['check', SUPPORT, '--export', 'support', '--max-depth', '0']);
    expect(depth.code).toBe(2);
    expect(existsSync(out)).toBe(false);
  });
});
