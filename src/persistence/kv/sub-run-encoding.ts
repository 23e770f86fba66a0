import { isObject } from '../../validation/option-checks.js';
import { omitFields, restoreFields } from './field-delta.js';

/**
 * How a sub-agent run is stored apart (see `sub-run-parts.ts`): without what its parent
 * already holds. A child run's context starts as its parent's call spec plus fields of the
 * parent (`sessionId`, the agent path, ...), and its step actors' inputs repeat its own
 * context; stored as they are, every step of a child would write them again. A part keeps
 * only what differs from what its parent (or its own context) gives; loading puts the rest
 * back from the same parent, which is stored and checked beside it (`field-delta.ts`).
 */

type Json = Record<string, unknown>;

/** The fixed fields of a stored sub-agent run's entry and of its snapshot. */
const ENTRY_BASE: Json = { src: 'subRun', syncSnapshot: false };
const SNAPSHOT_BASE: Json = { status: 'active', historyValue: {} };
/** The same of a step actor's (a promise actor) entry and snapshot. */
const STEP_ENTRY_BASE: Json = { syncSnapshot: false };
const STEP_SNAPSHOT_BASE: Json = { status: 'active' };

/** A base without its `undefined` fields (JSON has none). */
const defined = (base: Json): Json =>
  Object.fromEntries(Object.entries(base).filter(([, v]) => v !== undefined));

/** The call spec of the parent's call that started the sub-agent run `runId`, if any. */
function specOf(parent: Json, runId: string): Json | undefined {
  const calls = parent['calls'];
  if (!Array.isArray(calls)) return undefined;
  for (const call of calls) {
    const spec = isObject(call) ? call['subRun'] : undefined;
    if (isObject(spec) && spec['runId'] === runId) return spec;
  }
  return undefined;
}

/**
 * What a child run's context starts from, as its parent's context gives it: the call spec's
 * fields, the parent's session and agent path, and the values of a run that has not stepped.
 */
function childContextBase(parent: unknown, runId: string): Json {
  const spec = isObject(parent) ? specOf(parent, runId) : undefined;
  if (!isObject(parent) || !spec) return {};
  const parentPath = Array.isArray(parent['agentPath'])
    ? (parent['agentPath'] as unknown[])
    : [parent['agentName']];
  return defined({
    runId,
    sessionId: parent['sessionId'],
    agentName: spec['name'],
    maxTurns: spec['maxTurns'],
    historyStart: 0,
    inputCount: 1,
    startedAt: spec['startedAt'],
    budget: {},
    standingDecisions: {},
    metadata: spec['metadata'],
    agentPath: [...parentPath, spec['name']],
    input: spec['input'],
    modelSettings: parent['modelSettings'],
    definition: spec['definition'],
    turn: 0,
    step: 0,
    usage: { inputTokens: 0, outputTokens: 0, cachedTokens: 0, costUsd: 0 },
    calls: [],
    newDecisions: {},
  });
}

/** The call of a run's context at journal step `step`, if any. */
function callAt(run: Json, step: unknown): Json | undefined {
  const calls = run['calls'];
  if (!Array.isArray(calls)) return undefined;
  return calls.find((c): c is Json => isObject(c) && c['step'] === step);
}

/**
 * What a step actor's input repeats of its run's context: a model call's the run's ids, step,
 * path and input; a tool call's the run id and path, and the call it makes (with the child
 * run's result, for a sub-agent's call).
 */
function stepInputBase(run: unknown, src: unknown, input: Json): Json {
  if (!isObject(run)) return {};
  const ids = { runId: run['runId'], path: run['agentPath'] };
  if (src === 'modelStep') {
    return defined({
      ...ids,
      sessionId: run['sessionId'],
      step: run['step'],
      turn: run['turn'],
      input: run['input'],
      modelSettings: run['modelSettings'],
    });
  }
  const call = src === 'toolCall' ? callAt(run, input['step']) : undefined;
  if (!call) return defined(ids);
  const spec = call['subRun'];
  const subResult = call['subResult'];
  return defined({
    ...ids,
    call: { callId: call['callId'], name: call['name'], arguments: call['arguments'] },
    subResult: isObject(subResult)
      ? defined({ ...subResult, failParent: isObject(spec) ? spec['failParent'] : undefined })
      : undefined,
  });
}

/** A step actor's entry (`{ src, snapshot: { status, input } }`) without what it repeats. */
function omitStep(child: Json, context: Json): Json {
  const step = child['snapshot'];
  if (!isObject(step)) return omitFields(child, STEP_ENTRY_BASE);
  const input = step['input'];
  const slim = isObject(input)
    ? { ...step, input: omitFields(input, stepInputBase(context, child['src'], input)) }
    : step;
  return omitFields({ ...child, snapshot: omitFields(slim, STEP_SNAPSHOT_BASE) }, STEP_ENTRY_BASE);
}

/** The step actor's entry `omitStep(child, context)` stored. */
function restoreStep(stored: Json, context: Json): Json {
  const child = restoreFields(stored, STEP_ENTRY_BASE);
  if (!isObject(child['snapshot'])) return child;
  const step = restoreFields(child['snapshot'], STEP_SNAPSHOT_BASE);
  const input = step['input'];
  const full = isObject(input)
    ? { ...step, input: restoreFields(input, stepInputBase(context, child['src'], input)) }
    : step;
  return { ...child, snapshot: full };
}

/** A run snapshot with its step actors (not its sub-agent runs) mapped. */
function mapSteps(snapshot: Json, map: (child: Json) => Json): Json {
  const children = snapshot['children'];
  if (!isObject(children)) return snapshot;
  const out: Json = {};
  for (const [id, child] of Object.entries(children)) {
    out[id] = isObject(child) && child['src'] !== 'subRun' ? map(child) : child;
  }
  return { ...snapshot, children: out };
}

/**
 * The stored form of a sub-agent run's entry (`{ src, snapshot }`, its own sub-agent runs
 * already replaced by references), given the context of the parent run it is a child of.
 */
export function encodeSubRun(entry: Json, parent: unknown, runId: string): Json {
  const snapshot = entry['snapshot'];
  if (!isObject(snapshot) || !isObject(snapshot['context'])) return entry;
  const context = snapshot['context'];
  const slim = mapSteps(
    { ...snapshot, context: omitFields(context, childContextBase(parent, runId)) },
    (child) => omitStep(child, context),
  );
  return omitFields({ ...entry, snapshot: omitFields(slim, SNAPSHOT_BASE) }, ENTRY_BASE);
}

/** The entry `encodeSubRun(entry, parent, runId)` stored (`undefined` if it is no object). */
export function decodeSubRun(stored: unknown, parent: unknown, runId: string): Json | undefined {
  if (!isObject(stored)) return undefined;
  const entry = restoreFields(stored, ENTRY_BASE);
  if (!isObject(entry['snapshot'])) return undefined;
  const snapshot = restoreFields(entry['snapshot'], SNAPSHOT_BASE);
  if (!isObject(snapshot['context'])) return undefined;
  const context = restoreFields(snapshot['context'], childContextBase(parent, runId));
  const full = mapSteps({ ...snapshot, context }, (child) => restoreStep(child, context));
  return { ...entry, snapshot: full };
}
