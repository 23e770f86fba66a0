import type { RunResult } from '../../session-host/run-result.js';
import { json, oneLine } from './cli-format.js';
import type { CommandContext } from './command.js';

/** Prints what a run the command ran came to: JSON with `--json`, else one line. */
export function printRun(ctx: CommandContext, result: RunResult, paused: string): void {
  const summary = {
    runId: result.id,
    sessionId: result.sessionId,
    userId: result.userId,
    output: result.output,
    interrupted: result.interrupted,
    interruptionReason: result.interruptionReason,
    interruptions: result.interruptions,
    turns: result.turns,
    usage: result.usage,
  };
  if (ctx.json) {
    ctx.io.out(json(summary));
    return;
  }
  if (result.interrupted) {
    const calls = result.interruptions.map((i) => `${i.callId} (${i.toolName})`).join(', ');
    ctx.io.out(
      `run ${result.id} ${paused}: ${result.interruptionReason ?? 'interrupted'}${calls ? `: ${calls}` : ''}\n`,
    );
    return;
  }
  ctx.io.out(
    `run ${result.id} finished after ${result.turns} turn(s): ${oneLine(String(result.output ?? ''), 200)}\n`,
  );
}
