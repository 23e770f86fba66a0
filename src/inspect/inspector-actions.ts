import type { SessionKey } from '../persistence/session-store.js';
import { cancelRun } from '../runtime/actions/cancel-run.js';
import { continueRun } from '../runtime/actions/continue-run.js';
import { forkSession } from '../runtime/actions/fork-session.js';
import { exportReplay } from '../runtime/export-replay.js';
import type { ApprovalDecision } from '../runtime/run-state.js';
import type { SessionRuntime } from '../runtime/session-runtime.js';
import { HttpError } from './http-io.js';

/** What an action endpoint does with the session, from the request's JSON body. */
export type InspectorAction = (
  runtime: SessionRuntime,
  key: SessionKey,
  body: Record<string, unknown>,
) => Promise<unknown>;

const optionalString = (body: Record<string, unknown>, name: string): string | undefined => {
  const value = body[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !value) {
    throw new HttpError(400, 'BAD_REQUEST', `"${name}" must be a non-empty string`);
  }
  return value;
};

const requiredString = (body: Record<string, unknown>, name: string): string => {
  const value = optionalString(body, name);
  if (value === undefined) throw new HttpError(400, 'BAD_REQUEST', `"${name}" is required`);
  return value;
};

/** The run's outcome as the page shows it (the RunResult without its RunState class). */
function outcome(result: {
  id: string;
  interrupted: boolean;
  interruptionReason?: string | undefined;
  output?: unknown;
  turns: number;
}) {
  return {
    runId: result.id,
    interrupted: result.interrupted,
    interruptionReason: result.interruptionReason,
    output: result.output,
    turns: result.turns,
  };
}

/** One decision on a pending call (approve or reject), then the run goes on. */
function decide(approve: boolean): InspectorAction {
  return async (runtime, key, body) => {
    const decision: ApprovalDecision = {
      callId: requiredString(body, 'callId'),
      approve,
      ...(optionalString(body, 'runId') ? { runId: optionalString(body, 'runId') } : {}),
      ...(!approve && optionalString(body, 'message')
        ? { message: optionalString(body, 'message') }
        : {}),
    };
    return outcome(await runtime.execute(key, continueRun({ decisions: [decision] })));
  };
}

/** The actions the page can take, by the last segment of their path. */
export const INSPECTOR_ACTIONS: Record<string, InspectorAction> = {
  approve: decide(true),
  reject: decide(false),
  resume: async (runtime, key) => outcome(await runtime.execute(key, continueRun())),
  cancel: async (runtime, key) => {
    await runtime.execute(key, cancelRun());
    return { cancelled: true };
  },
  fork: async (runtime, key, body) => {
    const at = body['at'];
    if (at !== undefined && (typeof at !== 'number' || !Number.isSafeInteger(at) || at < 0)) {
      throw new HttpError(400, 'BAD_REQUEST', '"at" must be a non-negative integer');
    }
    const newId = optionalString(body, 'newId');
    const info = await runtime.execute(key, forkSession(newId, at === undefined ? {} : { at: at }));
    return {
      sessionId: info.sessionId,
      parentId: info.parentId,
      historyLength: info.historyLength,
    };
  },
  export: async (runtime, key, body) => {
    const runId = optionalString(body, 'runId');
    return exportReplay(runtime, key, runId === undefined ? {} : { runId });
  },
};
