import type { TimelineStep } from './run-timeline.js';

/** What nesting reads of a run of the tree. */
interface Nestable<N> {
  runId: string;
  timeline: TimelineStep[];
  children: N[];
}

/**
 * A finished run's sub-agent runs, stored as one flat list (`lastRun.subRuns`), nested again:
 * each under the run whose model step called it (`subRunId` of a tool call), down to any depth.
 * A run no step names stays under `root`.
 */
export function nestSubRuns<N extends Nestable<N>>(root: N, flat: readonly N[]): N {
  const callerOf = new Map<string, string>();
  for (const run of [root, ...flat]) {
    for (const step of run.timeline) {
      for (const call of step.model?.toolCalls ?? []) {
        if (call.subRunId !== undefined) callerOf.set(call.subRunId, run.runId);
      }
    }
  }
  const byId = new Map([root, ...flat].map((run) => [run.runId, run]));
  for (const run of flat) {
    const caller = byId.get(callerOf.get(run.runId) ?? root.runId);
    (caller && caller !== run ? caller : root).children.push(run);
  }
  return root;
}
