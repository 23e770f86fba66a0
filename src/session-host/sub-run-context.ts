import type { RunContext } from '../core/run-context.js';
import type { RunSnapshot } from '../runs/live-snapshots.js';
import { callOfSubRun, runChain } from '../runs/run-tree.js';

/**
 * The RunContext of a run's tools: the session run's (`base`), or for a sub-agent run its
 * parent's with overrides (its own run id, the caller's metadata merged over the parent's, and
 * the user or session the sub-agent tool names explicitly).
 */
export function subRunContext(
  run: RunSnapshot | undefined,
  runId: string,
  base: (runId: string) => RunContext,
): RunContext {
  const chain = runChain(run, runId);
  let context = base(chain[0]?.context?.runId ?? runId);
  for (let i = 1; i < chain.length; i++) {
    const child = chain[i]!.context!;
    const spec = callOfSubRun(chain[i - 1]!, child.runId)?.subRun;
    context = context.withOverrides({
      runId: child.runId,
      metadata: { ...context.metadata, ...(child.metadata ?? {}) },
      ...(spec?.userId === undefined ? {} : { userId: spec.userId }),
      ...(spec?.sessionId === undefined ? {} : { sessionId: spec.sessionId }),
    });
  }
  return context;
}
