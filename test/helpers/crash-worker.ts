/**
 * Child process of the crash test:
 *   node --import tsx test/helpers/crash-worker.ts <dbDir> <logFile> <start|resume|cancel> <steps>
 * (`cancel`: cancels the stored run, then sends `go` again and runs that run to its end)
 * with `CRASH_AT=<phase>:<target>` to stop at a kill point (see crash-point.ts), and
 * `CRASH_SCENARIO=sub-agents` to run the nested scenario of crash-sub-agents.ts instead.
 *
 * Runs session `crash` of user `u`: the scripted model asks for `append({ n })` with call id
 * `call-<n>` until it has seen `steps` tool results, then answers with a summary of all tool
 * outputs. The tool appends `<callId> <n> <runId> <pid>` to the log file, its callId being the
 * idempotency key it reads from its options. Prints progress markers, then `result <json>`.
 *
 * The model call that asks for call `n` fails once for each `n` in `failingCalls` (a
 * `ModelError`, recorded in `<logFile>.model-failures` before it is thrown, so it fails once per
 * folder, across processes): the run is then interrupted with reason `error` and the worker
 * resumes it, as an app would, until it is not.
 *
 * `CRASH_IN_DOUBT=<retry|fail|reconcile|ask-retry|ask-result|ask-fail>` sets what the tool does
 * with a call in doubt (in flight at a kill): without it the tool is `idempotent` (its call runs
 * again); `reconcile` looks the call id up in the log file (found: its value; else it runs
 * again); `ask-<action>` is `onInterrupted: 'ask'`: the run pauses in doubt, and the worker, as
 * an operator would, notes `<callId> <status> <interruption>` of the stored run in
 * `<logFile>.in-doubt` and resolves the call with `<action>` (`result`: the tool's value).
 *
 * `CRASH_DURABILITY=<step|tools|run>` runs the agents with that durability (default: the
 * agent's default). Every model call appends `<n> <pid>` to `<logFile>.model-calls`; a resume
 * first prints `durable <tools> <state>`: the tool results the store holds for the stored run
 * and the run's stored state (`none` without one), i.e. where the kill left the run.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { z } from 'zod';
import { getRunContext } from '../../src/core/run-context-storage.js';
import { ModelError } from '../../src/errors/run-errors.js';
import { NothingToResumeError, SessionNotFoundError } from '../../src/errors/session-errors.js';
import { ScriptedModel, type ScriptedResponse } from '../../src/models/scripted-model.js';
import type { ModelRequest } from '../../src/models/model.js';
import { LevelSessionStore } from '../../src/persistence/kv/level-session-store.js';
import { Agent } from '../../src/agent/agent.js';
import type { Durability } from '../../src/core/durability-policy.js';
import type { SessionRuntime } from '../../src/sessions/session-runtime.js';
import type { RunResult } from '../../src/session-host/run-result.js';
import type { InDoubtResolution } from '../../src/actions/resolve-in-doubt.js';
import { tool } from '../../src/tools/tool.js';
import { failingCalls, readModelFailures } from './crash-model-failures.js';
import { CRASH_SESSION, CrashCheckpoints, parseCrashPoint } from './crash-point.js';
import { CrashStore } from './crash-store.js';
import { runSubAgentScenario } from './crash-sub-agents.js';

/** What the worker prints on success; the test compares it with a run never killed. */
export interface CrashWorkerResult {
  output: unknown;
  turns: number | undefined;
  runUsage: unknown;
  sessionUsage: unknown;
  userUsage: unknown;
  history: unknown[];
  /** The sub-agent runs of the last run, in the sub-agent scenario: `[path, status, turns]`. */
  subRuns?: unknown[] | undefined;
}

/** The tool's deterministic result for call `n`; the final answer depends on all of them. */
export const toolValue = (n: number): number => (n * 37 + 11) % 101;

function write(line: string): void {
  process.stdout.write(`${line}\n`);
}

function scripted(steps: number, checkpoints: CrashCheckpoints, logFile: string) {
  const failing = failingCalls(steps);
  return async (request: ModelRequest): Promise<ScriptedResponse> => {
    const results = request.items.filter((i) => i.type === 'tool_result');
    appendFileSync(`${logFile}.model-calls`, `${results.length} ${process.pid}\n`);
    await checkpoints.reach('model', results.length);
    if (results.length < steps) {
      const n = results.length;
      if (failing.includes(n) && !readModelFailures(logFile).includes(n)) {
        appendFileSync(`${logFile}.model-failures`, `${n}\n`);
        const status = 503;
        return { error: new ModelError(`overloaded at ${n}`, { status, retryable: true }) };
      }
      return { toolCalls: [{ name: 'append', arguments: { n }, callId: `call-${n}` }] };
    }
    const outputs = results.map((r) => Number(r.output));
    const total = outputs.reduce((a, b) => a + b, 0);
    return { text: `${results.length} calls, total ${total}, last ${outputs.at(-1)}` };
  };
}

async function main(): Promise<void> {
  const [dbDir, logFile, mode, stepsArg] = process.argv.slice(2);
  if (!dbDir || !logFile || !['start', 'resume', 'cancel'].includes(mode ?? '') || !stepsArg) {
    throw new Error('usage: crash-worker.ts <dbDir> <logFile> <start|resume|cancel> <steps>');
  }
  const steps = Number(stepsArg);
  const checkpoints = new CrashCheckpoints(parseCrashPoint(process.env.CRASH_AT), write);
  const level = await LevelSessionStore.open({ path: dbDir });
  const durability = durabilityOf(process.env.CRASH_DURABILITY);
  if (process.env.CRASH_SCENARIO === 'sub-agents') {
    if (mode === 'cancel') throw new Error('the sub-agent scenario starts or resumes');
    const result = await runSubAgentScenario(
      level,
      logFile,
      mode as 'start' | 'resume',
      checkpoints,
      durability,
    );
    await level.close();
    write(`result ${JSON.stringify(result)}`);
    return;
  }
  const store = new CrashStore(level, checkpoints, steps);
  const append = tool({
    name: 'append',
    description: 'Appends a line to the log file',
    parameters: z.object({ n: z.number().int() }),
    ...inDoubtOptions(process.env.CRASH_IN_DOUBT, logFile),
    async execute({ n }, { callId }) {
      await checkpoints.reach('tool-before', n);
      appendFileSync(logFile, `${callId} ${n} ${getRunContext().runId} ${process.pid}\n`);
      await checkpoints.reach('tool-after', n);
      return toolValue(n);
    },
  });
  const model = new ScriptedModel(scripted(steps, checkpoints, logFile));
  const agent = new Agent({
    name: 'crash',
    model,
    tools: [append],
    maxTurns: steps + 5,
    ...(durability ? { durability } : {}),
  });
  const options = { userId: CRASH_SESSION.userId, store };
  const runtime = agent.runtimeFor(store);
  if (mode === 'resume') write(await durablePoint(runtime, level));

  /**
   * The run's output, once it is no longer interrupted by a failed model call (resumed) or a
   * call in doubt (resolved as `CRASH_IN_DOUBT` says).
   */
  const retried = async (run: Promise<RunResult<unknown>>): Promise<unknown> => {
    let result = await run;
    while (result.interruptionReason === 'error' || result.interruptionReason === 'in_doubt') {
      if (result.interruptionReason === 'error') {
        result = await agent.resume(CRASH_SESSION.sessionId, options);
        continue;
      }
      const status = (await runtime.getSession(CRASH_SESSION)).runStatus;
      for (const call of result.callsInDoubt ?? []) {
        appendFileSync(
          `${logFile}.in-doubt`,
          `${call.callId} ${status?.status} ${status?.interruption}\n`,
        );
        const n = (call.arguments as { n: number }).n;
        result = await agent.resolveInDoubt(
          CRASH_SESSION.sessionId,
          operatorResolution(call.callId, process.env.CRASH_IN_DOUBT, n),
          { ...options, by: 'operator' },
        );
      }
    }
    return result.output;
  };
  let reported: unknown;
  if (mode === 'cancel') await agent.cancel(CRASH_SESSION.sessionId, options);
  if (mode === 'start' || mode === 'cancel') {
    reported = await retried(agent.run('go', { ...options, sessionId: CRASH_SESSION.sessionId }));
  } else {
    try {
      reported = await retried(agent.resume(CRASH_SESSION.sessionId, options));
    } catch (error) {
      if (!(error instanceof NothingToResumeError || error instanceof SessionNotFoundError))
        throw error;
      const view = await runtime.getSession(CRASH_SESSION).catch(() => undefined);
      // Killed before the run was first saved: start it; finished before the kill: report it.
      reported = view?.lastRun
        ? view.lastRun.output
        : await retried(agent.run('go', { ...options, sessionId: CRASH_SESSION.sessionId }));
    }
  }

  const view = await runtime.getSession(CRASH_SESSION);
  if (view.lastRun?.output !== reported)
    throw new Error(`reported ${String(reported)}, stored ${String(view.lastRun?.output)}`);
  const result: CrashWorkerResult = {
    output: reported,
    turns: view.lastRun?.turn,
    runUsage: view.lastRun?.usage,
    sessionUsage: view.usage,
    userUsage: await level.userUsage(CRASH_SESSION.userId),
    history: await level.readHistory(CRASH_SESSION),
  };
  await level.close();
  write(`result ${JSON.stringify(result)}`);
}

/** The tool's options for a call in doubt (see `CRASH_IN_DOUBT`). */
function inDoubtOptions(mode: string | undefined, logFile: string) {
  switch (mode) {
    case undefined:
    case '':
      return { idempotent: true };
    case 'retry':
    case 'fail':
      return { onInterrupted: mode };
    case 'ask-retry':
    case 'ask-result':
    case 'ask-fail':
      return { onInterrupted: 'ask' as const };
    case 'reconcile':
      return {
        reconcile: ({ args }: { args: { n: number } }, { callId }: { callId: string }) => {
          const done = readFileSync(logFile, 'utf8')
            .split('\n')
            .some((line) => line.startsWith(`${callId} `));
          return done ? { result: toolValue(args.n) } : ('retry' as const);
        },
      };
    default:
      throw new Error(`bad CRASH_IN_DOUBT ${mode}`);
  }
}

/** The operator's resolution of a call in doubt (`CRASH_IN_DOUBT=ask-<action>`). */
function operatorResolution(
  callId: string,
  mode: string | undefined,
  n: number,
): InDoubtResolution {
  if (mode === 'ask-retry') return { callId, action: 'retry' };
  if (mode === 'ask-result') return { callId, action: 'result', result: toolValue(n) };
  if (mode === 'ask-fail') return { callId, action: 'fail' };
  throw new Error(`the run paused in doubt under CRASH_IN_DOUBT=${String(mode)}`);
}

function durabilityOf(text: string | undefined): Durability | undefined {
  if (!text) return undefined;
  if (!['step', 'tools', 'run'].includes(text)) throw new Error(`bad CRASH_DURABILITY ${text}`);
  return text as Durability;
}

/** `durable <tool results stored for the stored run> <its stored state, or none>`. */
async function durablePoint(runtime: SessionRuntime, level: LevelSessionStore): Promise<string> {
  const view = await runtime.getSession(CRASH_SESSION).catch((error: unknown) => {
    if (error instanceof SessionNotFoundError) return undefined;
    throw error;
  });
  const runId = view?.run?.context.runId ?? view?.lastRun?.runId;
  if (!runId) return 'durable 0 none';
  const journal = await level.readRunJournal(CRASH_SESSION, runId);
  return `durable ${journal.filter((e) => e.kind === 'tool').length} ${view?.run?.state ?? 'ended'}`;
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(
      `crash-worker failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  },
);
