import { writeFile } from 'node:fs/promises';
import { exportReplay } from '../../recovery/export-replay.js';
import { json } from '../shared/cli-format.js';
import { notePartition } from '../shared/cli-store.js';
import { outFile } from '../shared/out-file.js';
import { stringFlag, type Command, type CommandContext } from '../shared/command.js';

async function run(ctx: CommandContext): Promise<void> {
  const out = stringFlag(ctx, 'out');
  const path = out === undefined ? undefined : outFile(ctx, out, 'export');
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
