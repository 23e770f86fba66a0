import type { ReplayFile } from '../models/replay-file.js';
import type { AnyTool } from '../tools/tool.js';

/** One recorded tool result, with the call that asked for it. */
interface RecordedResult {
  name: string;
  arguments: string;
  output: string;
  isError: boolean;
  used: boolean;
}

/** The tool results a replay recorded, in order, each with its call's name and arguments. */
function recordedResults(replay: ReplayFile): RecordedResult[] {
  return replay.runs.flatMap((run) => {
    const calls = new Map(run.modelCalls.flatMap((m) => m.toolCalls.map((c) => [c.callId, c])));
    return run.toolResults.flatMap((r) => {
      const call = calls.get(r.callId);
      if (!call || r.output === undefined) return [];
      return [
        {
          name: call.name,
          arguments: call.arguments,
          output: r.output,
          isError: r.isError,
          used: false,
        },
      ];
    });
  });
}

/**
 * `tools` made to answer what `replay` recorded: a call gets the unused result of a call with
 * its name and arguments, else the next unused result of its name; with none, it fails saying
 * so (the model reads a tool error). A sub-agent tool or a handoff is kept as it is (its
 * sub-agent runs). One script per row: the results are used up as the run goes.
 */
export function scriptedTools(tools: readonly AnyTool[], replay: ReplayFile): AnyTool[] {
  const results = recordedResults(replay);
  return tools.map((t) => {
    if (t.subAgent || t.handoff) return t;
    const execute = (args: unknown): string => {
      const text = JSON.stringify(args);
      const mine = results.filter((r) => !r.used && r.name === t.name);
      const hit = mine.find((r) => r.arguments === text || sameJson(r.arguments, args)) ?? mine[0];
      if (!hit) throw new Error(`no recorded result of tool "${t.name}" is left for this call`);
      hit.used = true;
      if (hit.isError) throw new Error(hit.output);
      return hit.output;
    };
    return { ...t, execute } as AnyTool;
  });
}

function sameJson(text: string, value: unknown): boolean {
  try {
    return JSON.stringify(JSON.parse(text)) === JSON.stringify(value);
  } catch {
    return false;
  }
}
