import type { SessionKey } from '../persistence/session-store.js';
import { continueRun } from '../actions/continue-run.js';
import { recordDecisions } from '../actions/record-decisions.js';
import { forkSession } from '../actions/fork-session.js';
import { checkInDoubtResolution, resolveInDoubt } from '../actions/resolve-in-doubt.js';
import { exportReplay } from '../recovery/export-replay.js';
import type { ApprovalDecision } from '../runs/run-state.js';
import { HttpError } from './http-io.js';
import { checkIdLength } from '../core/id-limit.js';
import type { InspectorAgents } from './inspector-agents.js';

/**
 * What an action endpoint does with the session, from the request's JSON body; `by` is who
 * acts (the inspector's `operator`).
 */
export type InspectorAction = (
  agents: InspectorAgents,
  key: SessionKey,
  body: Record<string, unknown>,
  by: string | undefined,
) => Promise<unknown>;

/** What a record-only inspector answers to Resume (its page hides the button). */
const NO_AGENT =
  'This inspector runs no agent of the app: the run continues when the app resumes it (start the inspector in the app, or `agentstate inspect --agent <module>`)';

/** A body's optional string field (an id one within the id length limit); else a 400. */
export const optionalString = (body: Record<string, unknown>, name: string): string | undefined => {
  const value = body[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !value) {
    throw new HttpError(400, 'BAD_REQUEST', `"${name}" must be a non-empty string`);
  }
  // an id (`newId`, `callId`, `runId`) has the one id length limit
  if (name.endsWith('Id')) checkIdLength(name, value);
  return value;
};

/** A body's string field, required; else a 400. */
export const requiredString = (body: Record<string, unknown>, name: string): string => {
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

/**
 * One decision on a pending call (approve or reject), then the run goes on with the agent that
 * runs it; a record-only inspector records it and the run goes on when the app resumes it.
 */
function decide(approve: boolean): InspectorAction {
  return async (agents, key, body) => {
    const decision: ApprovalDecision = {
      callId: requiredString(body, 'callId'),
      approve,
      ...(optionalString(body, 'runId') ? { runId: optionalString(body, 'runId') } : {}),
      ...(!approve && optionalString(body, 'message')
        ? { message: optionalString(body, 'message') }
        : {}),
    };
    if (agents.recordOnly) {
      await agents.runtime.execute(key, recordDecisions([decision], { via: 'page' }));
      return {
        recorded: true,
        callId: decision.callId,
        decision: approve ? 'approved' : 'rejected',
        note: 'recorded: the run continues when the app resumes it',
      };
    }
    const runtime = await agents.runtimeFor(key);
    return outcome(await runtime.execute(key, continueRun({ decisions: [decision], via: 'page' })));
  };
}

/**
 * An operator's resolution of a call in doubt (`{ callId, action, result?, runId? }`), then the
 * run goes on with the agent that runs it; a record-only inspector records it (held) and the
 * run goes on when the app resumes it.
 */
const resolveCallInDoubt: InspectorAction = async (agents, key, body) => {
  // A bad body is a TypeError: 400 BAD_REQUEST.
  const resolution = checkInDoubtResolution('resolve-in-doubt', body);
  if (agents.recordOnly) {
    await agents.runtime.execute(key, resolveInDoubt(resolution, { via: 'page', hold: true }));
    return {
      recorded: true,
      callId: resolution.callId,
      action: resolution.action,
      note: 'recorded: the run continues when the app resumes it',
    };
  }
  const runtime = await agents.runtimeFor(key);
  const result = await runtime.execute(key, resolveInDoubt(resolution, { via: 'page' }));
  return outcome(result!);
};

/** The actions the page can take, by the last segment of their path. */
export const INSPECTOR_ACTIONS: Record<string, InspectorAction> = {
  approve: decide(true),
  reject: decide(false),
  'resolve-in-doubt': resolveCallInDoubt,
  resume: async (agents, key) => {
    if (agents.recordOnly) throw new HttpError(400, 'NO_AGENT', NO_AGENT);
    const runtime = await agents.runtimeFor(key);
    return outcome(await runtime.execute(key, continueRun()));
  },
  // Wherever the run is: executing here (over when this answers), in another process on a
  // store with a decision inbox (requested: that process stops it), or paused or crashed.
  cancel: async ({ runtime }, key, _body, by) => {
    await runtime.cancel(key, by);
    const { run } = await runtime.getSession(key);
    if (run) {
      return {
        requested: true,
        ...(by === undefined ? {} : { by }),
        note: 'the process executing the run stops it',
      };
    }
    return { cancelled: true, ...(by === undefined ? {} : { by }) };
  },
  fork: async ({ runtime }, key, body) => {
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
  export: async ({ runtime }, key, body) => {
    const runId = optionalString(body, 'runId');
    return exportReplay(runtime, key, runId === undefined ? {} : { runId });
  },
};
