import type { SessionKey } from '../persistence/session-store.js';
import type { SessionRuntime } from '../sessions/session-runtime.js';
import { HttpError } from './http-io.js';
import type { InspectorAgents } from './inspector-agents.js';
import { runDetail } from './inspector-reads.js';
import { modelRequest } from './model-requests.js';
import { runWaterfall } from './run-waterfall.js';
import { runFrames } from './time-travel.js';

/**
 * The reads under a run's path: `waterfall` (its steps on a time axis, see `runWaterfall`),
 * `steps` (each step with the run's context before and after it, see `runFrames`) and
 * `steps/<n>/request` (what model step `n` was sent, see `modelRequest`). Anything else is a
 * 404; a step number that is not an integer >= 0 is a 400.
 */
export async function runPart(
  runtime: SessionRuntime,
  agents: InspectorAgents,
  key: SessionKey,
  runId: string,
  path: string[],
): Promise<unknown> {
  const [what, step, part, ...rest] = path;
  if (what === 'waterfall' && step === undefined) {
    const { tree } = await runDetail(runtime, key, runId);
    return runWaterfall(tree, Date.now());
  }
  if (what === 'steps' && step === undefined) return runFrames(runtime, key, runId);
  if (what === 'steps' && step !== undefined && part === 'request' && rest.length === 0) {
    if (!/^\d{1,9}$/.test(step)) {
      throw new HttpError(400, 'BAD_REQUEST', `The step must be an integer >= 0, got "${step}"`);
    }
    return modelRequest(runtime, agents, key, runId, Number(step));
  }
  throw new HttpError(404, 'NOT_FOUND', `Nothing at run path "${path.join('/')}"`);
}
