import { writeFile } from 'node:fs/promises';
import type { AgentCertificate } from '../../agent-check/agent-certificate.js';
import { certificateMarkdown, changesMarkdown } from '../../agent-check/certificate-markdown.js';
import { checkAgent } from '../../agent-check/check-agent.js';
import { compareCertificates } from '../../agent-check/compare-certificates.js';
import { parseCertificate } from '../../agent-check/parse-certificate.js';
import { agentExport } from '../shared/agent-export.js';
import { CliFailure, CliUsageError } from '../shared/cli-errors.js';
import { json } from '../shared/cli-format.js';
import { intFlag, stringFlag, type Command, type CommandContext } from '../shared/command.js';
import { outFile } from '../shared/out-file.js';
import { readGivenFile } from '../shared/given-file.js';

const FORMATS = ['json', 'markdown'] as const;
type Format = (typeof FORMATS)[number];

/** `--format`, else `json` with `--json`, else markdown. */
function formatOf(ctx: CommandContext): Format {
  const given = stringFlag(ctx, 'format');
  if (given === undefined) return ctx.json ? 'json' : 'markdown';
  if (!(FORMATS as readonly string[]).includes(given)) {
    throw new CliUsageError(
      `--format must be json or markdown, got ${JSON.stringify(given)}`,
      'check',
    );
  }
  return given as Format;
}

/** The baseline certificate of `--baseline`, read and checked before anything is written. */
async function readBaseline(ctx: CommandContext, file: string): Promise<AgentCertificate> {
  return parseCertificate(await readGivenFile(ctx, file, '--baseline'));
}

async function run(ctx: CommandContext): Promise<void> {
  const format = formatOf(ctx);
  const out = stringFlag(ctx, 'out');
  const path = out === undefined ? undefined : outFile(ctx, out, 'check');
  const maxDepth = intFlag(ctx, 'check', 'max-depth', 1);
  const baselineFile = stringFlag(ctx, 'baseline');
  const baseline = baselineFile === undefined ? undefined : await readBaseline(ctx, baselineFile);
  const spec = ctx.args['module']!;
  const agent = await agentExport(ctx, spec, '<module>', 'check');
  const cert = checkAgent(agent, maxDepth === undefined ? {} : { maxDepth });
  const text = format === 'json' ? json(cert) : certificateMarkdown(cert);
  if (path !== undefined) await writeFile(path, text);
  if (baseline === undefined) {
    if (path === undefined) ctx.io.out(text);
    else {
      const free = cert.tools.filter((t) => t.withoutApproval).length;
      ctx.io.out(
        `wrote ${out}: ${cert.tools.length} tool(s) reachable, ${free} without approval, ${cert.risks.inDoubt.length} in-doubt risk(s)\n`,
      );
    }
    return;
  }
  if (baseline.agent !== cert.agent) {
    ctx.io.err(
      `note: the baseline is of agent "${baseline.agent}", the module's is "${cert.agent}"\n`,
    );
  }
  const changes = compareCertificates(baseline, cert);
  ctx.io.out(format === 'json' ? json(changes) : changesMarkdown(changes));
  if (changes.widened.length > 0) {
    throw new CliFailure(
      `${changes.widened.length} widening(s) of what agent "${cert.agent}" can reach since ${baselineFile}: ${changes.widened.map((c) => c.message).join('; ')}`,
    );
  }
}

export const check: Command = {
  name: 'check',
  summary:
    'the certificate of what an agent can reach: each tool through which approvals, in-doubt risks, loops; --baseline fails when it widened',
  args: ['module'],
  options: {
    export: {
      type: 'string',
      value: 'name',
      description:
        'the export that is the agent (default: the default export, else `agent`, else the one export that is an agent)',
    },
    format: {
      type: 'string',
      value: 'json|markdown',
      description:
        'the certificate (or the comparison) as JSON or markdown (default: markdown; --json: json)',
    },
    out: {
      type: 'string',
      value: 'file',
      description: 'write the certificate here (a baseline for later checks: --format json)',
    },
    baseline: {
      type: 'string',
      value: 'cert.json',
      description:
        'compare with this certificate: exit 1 when a tool is newly reachable, reachable without approval, a new in-doubt risk or loop',
    },
    'max-depth': {
      type: 'string',
      value: 'N',
      description: "how deep sub-agent runs are followed (default: the agent's maxSubAgentDepth)",
    },
  },
  examples: [
    'agentstate check ./dist/agent.js --format json --out cert.json',
    'agentstate check ./dist/agent.js --baseline cert.json',
  ],
  details:
    'Static: nothing runs, no model is called, no toolkit is created (its tools are opaque). A TypeScript module needs a loader (node --import tsx) or a build. Exit codes: 0 checked (with --baseline: nothing widened), 1 what the agent can reach widened, 2 a bad flag, module or baseline (nothing written).',
  run,
};
