import { statSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { exportReplay } from '../../recovery/export-replay.js';
import { CliUsageError } from '../shared/cli-errors.js';
import { json } from '../shared/cli-format.js';
import { notePartition } from '../shared/cli-store.js';
import { stringFlag, type Command, type CommandContext } from '../shared/command.js';

/** The file `--out` names (resolved from the working folder), checked before anything is read. */
function outPath(ctx: CommandContext, out: string): string {
  const path = resolve(ctx.io.cwd, out);
  if (out === '' || isFolder(path)) {
    throw new CliUsageError(
      `--out must name a file, got ${out === '' ? 'an empty name' : `the folder ${out}`}`,
      'export',
    );
  }
  return path;
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

async function run(ctx: CommandContext): Promise<void> {
  const out = stringFlag(ctx, 'out');
  const path = out === undefined ? undefined : outPath(ctx, out);
  const runId = stringFlag(ctx, 'run');
  const cli = await ctx.open();
  await notePartition(cli, ctx.user, ctx.io);
  const key = cli.key(ctx.args['sessionId']!);
  const progress = (runs: number) =>
    ctx.io.err(
      `exporting ${key.sessionId}: ${runs} run(s) read${ctx.io.stderrIsTTY ? '\r' : '\n'}`,
    );
  const replay = await exportReplay(cli.runtime, key, {
    ...(runId === undefined ? {} : { runId }),
    onProgress: progress,
  });
  const text = json(replay);
  if (out === undefined || path === undefined) {
    ctx.io.out(text);
    return;
  }
  await writeFile(path, text);
  const models = replay.runs.reduce((n, r) => n + r.modelCalls.length, 0);
  const line = `wrote ${out}: run ${replay.run.runId} (${replay.run.status}), ${replay.runs.length} run(s), ${models} model answer(s), ${Buffer.byteLength(text)} bytes\n`;
  if (ctx.json) ctx.io.out(json({ path, runId: replay.run.runId, bytes: Buffer.byteLength(text) }));
  else ctx.io.out(line);
}

export const exportCommand: Command = {
  name: 'export',
  summary:
    "a run's replay file (JSON): input, model answers, tool results; load it with ScriptedModel.fromReplay",
  args: ['sessionId'],
  options: {
    out: { type: 'string', value: 'file', description: 'write the file here (default: stdout)' },
    run: {
      type: 'string',
      value: 'runId',
      description: 'the run (default: the current, else the last run)',
    },
  },
  examples: ['agentstate export conv-42 --user alice --out incident.json'],
  run,
};
