import { createHash } from 'node:crypto';
import type { CallState, RunMachineContext } from '../machines/run-types.js';
import { isSubRun } from '../machines/agent-path.js';
import type { Interruption } from './run-state.js';

/**
 * A short, stable fingerprint of a tool call: its name and its arguments exactly as the model
 * sent them. A decision carries the fingerprint of the call it was made on, so it is never
 * applied to a different call that happens to reuse the call id.
 * @example callFingerprint('send_email', '{"to":"a@b.c"}') // 'q3V0...' (16 characters)
 */
export function callFingerprint(name: string, args: string): string {
  return createHash('sha256')
    .update(JSON.stringify([name, args]))
    .digest('base64url')
    .slice(0, 16);
}

/** A call's arguments as the app reads them: parsed JSON, or the raw text if it is not JSON. */
export function parseArgs(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

/**
 * How a call waiting for approval appears in a RunResult, a RunState and a stream event: with
 * the run that waits (a sub-agent's run: with its agent path, top-level agent first).
 */
export function interruptionOf(
  call: CallState,
  run: Pick<RunMachineContext, 'agentName' | 'agentPath' | 'runId' | 'activeAgent'>,
): Interruption {
  return {
    callId: call.callId,
    toolName: call.name,
    arguments: parseArgs(call.arguments),
    // the agent that asked: the one the run was handed off to, if it was
    agent: run.activeAgent ?? run.agentName,
    runId: run.runId,
    ...(isSubRun(run.agentPath) ? { agentPath: run.agentPath } : {}),
    ...(call.deadline === undefined ? {} : { deadline: call.deadline }),
    fingerprint: callFingerprint(call.name, call.arguments),
  };
}
