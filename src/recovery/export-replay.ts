import { RunNotFoundError } from '../errors/replay-errors.js';
import { redactDeep, type Redact } from '../errors/redact-deep.js';
import { MACHINE_VERSION } from '../machines/session-machine.js';
import type {
  ApprovalCheckOutput,
  ModelStepOutput,
  ToolCallOutput,
} from '../machines/step-actor-io.js';
import type { RunUsage } from '../machines/run-usage.js';
import {
  REPLAY_FORMAT,
  REPLAY_VERSION,
  parseReplay,
  type ReplayFile,
  type ReplayModelCall,
  type ReplayRun,
} from '../models/replay-file.js';
import { CURRENT_SCHEMA_VERSION } from '../persistence/session-record-codec.js';
import type { JournalEntry, SessionKey, SessionStore } from '../persistence/session-store.js';
import { systemClock, type Clock } from '../core/clock.js';
import { OptionChecker, optionNames } from '../validation/option-checks.js';
import { packageVersion } from '../core/package-version.js';
import type { SessionView } from '../runs/session-view.js';
import { readCheckedJournal } from '../runs/stored-session-check.js';

export interface ExportReplayOptions {
  /**
   * The run to export: the session's current (paused) run or its last one.
   * @default the current run, else the last
   */
  runId?: string | undefined;
  /**
   * Scrubs more text from the file. What the store holds was already scrubbed by the agent's
   * `redact` when it was written.
   */
  redact?: Redact | undefined;
  /** Stamps `exportedAt`. @default the system clock */
  clock?: Clock | undefined;
  /** Called with the number of runs read so far (a sub-agent run each), for a progress line. */
  onProgress?: ((runsRead: number) => void) | undefined;
}

const EXPORT_OPTION_NAMES = optionNames<ExportReplayOptions>({
  runId: true,
  redact: true,
  clock: true,
  onProgress: true,
});

/** What the export knows of the run to export, from the session's snapshot. */
interface ExportedRun {
  runId: string;
  agentName: string;
  status: string;
  startedAt: number;
  turns: number;
  usage: RunUsage;
  output?: string | undefined;
  historyStart: number;
  inputCount: number;
}

const usageOf = (u: RunUsage) => ({
  inputTokens: u.inputTokens,
  outputTokens: u.outputTokens,
  cachedTokens: u.cachedTokens,
  ...(u.reasoningTokens === undefined ? {} : { reasoningTokens: u.reasoningTokens }),
  ...(u.costUsd === undefined ? {} : { costUsd: u.costUsd }),
});

/** One run's journal as replay entries; `agent` follows the run's handoffs. */
function replayRun(
  runId: string,
  agentPath: string[],
  input: string | undefined,
  journal: readonly JournalEntry[],
): { run: ReplayRun; children: { runId: string; name: string; input: string }[] } {
  let agent = agentPath.at(-1)!;
  const run: ReplayRun = {
    runId,
    agentPath,
    ...(input === undefined ? {} : { input }),
    modelCalls: [],
    toolResults: [],
    approvals: [],
  };
  const children: { runId: string; name: string; input: string }[] = [];
  for (const entry of [...journal].sort((a, b) => a.step - b.step)) {
    const { step, at } = entry;
    if (entry.kind === 'model') {
      const out = entry.output as ModelStepOutput;
      const call: ReplayModelCall = {
        step,
        at,
        agent,
        ...(out.text === undefined ? {} : { text: out.text }),
        toolCalls: out.toolCalls.map((c) => ({
          callId: c.callId,
          name: c.name,
          arguments: c.arguments,
          ...(c.subRun ? { subRunId: c.subRun.runId } : {}),
          ...(c.handoff === undefined ? {} : { handoff: c.handoff }),
        })),
        usage: usageOf(out.usage),
      };
      run.modelCalls.push(call);
      for (const c of out.toolCalls) {
        if (c.subRun)
          children.push({ runId: c.subRun.runId, name: c.subRun.name, input: c.subRun.input });
        if (c.handoff !== undefined) agent = c.handoff;
      }
    } else if (entry.kind === 'tool') {
      const out = entry.output as ToolCallOutput;
      run.toolResults.push({
        step,
        at,
        callId: out.callId,
        isError: out.isError,
        ...(out.result ? { name: out.result.name, output: out.result.output } : {}),
        ...(out.rejected ? { rejected: true as const } : {}),
      });
    } else if (entry.kind === 'approval') {
      // A guardrail step is not part of a replay (its checks run again where it is replayed).
      const out = entry.output as ApprovalCheckOutput;
      run.approvals.push({
        step,
        at,
        calls: out.decisions.map((d) => ({ callId: d.callId, needsApproval: d.needsApproval })),
      });
    }
  }
  return { run, children };
}

/** The run and its sub-agent runs (depth first, in call order) read from the journal. */
async function readRuns(
  store: SessionStore,
  key: SessionKey,
  top: ExportedRun,
  onProgress: ((runsRead: number) => void) | undefined,
): Promise<{ runs: ReplayRun[]; lastStepAt: number | undefined }> {
  const runs: ReplayRun[] = [];
  let lastStepAt: number | undefined;
  const visit = async (runId: string, path: string[], input: string | undefined) => {
    const journal = await readCheckedJournal(store, key, runId);
    for (const e of journal) lastStepAt = Math.max(lastStepAt ?? 0, e.at);
    const { run, children } = replayRun(runId, path, input, journal);
    runs.push(run);
    onProgress?.(runs.length);
    for (const child of children) await visit(child.runId, [...path, child.name], child.input);
  };
  await visit(top.runId, [top.agentName], undefined);
  return { runs, lastStepAt };
}

/** What an export reads of a runtime (a `SessionRuntime` is one): the session and its store. */
export interface ReplaySource {
  readonly store: SessionStore;
  getSession(target: string | SessionKey): Promise<SessionView>;
}

/**
 * The replay file of one run of a session (see `ScriptedModel.fromReplay`): its input, every
 * model answer in order (the run's and its sub-agent runs'), the tool results and approval
 * checks from the journal, and the versions and times. It reads through the runtime, so the
 * user partition holds (another user's session is `SessionNotFoundError`), and never changes
 * the session. The file is checked against the replay schema before it is returned.
 * @throws RunNotFoundError when the session has no such run (only its current or last run is
 *   kept); TypeError for bad options.
 * @example
 * const replay = await exportReplay(runtime, { sessionId: 'conv-42', userId: 'alice' });
 * await writeFile('incident.json', JSON.stringify(replay, null, 2));
 */
export function exportReplay(
  runtime: ReplaySource,
  target: string | SessionKey,
  options: ExportReplayOptions = {},
): Promise<ReplayFile> {
  new OptionChecker('exportReplay()', options, EXPORT_OPTION_NAMES)
    .nonEmptyString('runId')
    .function('redact')
    .implements('clock', 'Clock', ['now'])
    .function('onProgress');
  return exportChecked(runtime, target, options);
}

async function exportChecked(
  runtime: ReplaySource,
  target: string | SessionKey,
  options: ExportReplayOptions,
): Promise<ReplayFile> {
  const view = await runtime.getSession(target);
  const key = { sessionId: view.sessionId, userId: view.userId };
  const current = view.run?.context;
  const candidates: ExportedRun[] = [];
  if (current && view.run) {
    candidates.push({ ...current, status: view.run.state, turns: current.turn });
  }
  if (view.lastRun) candidates.push({ ...view.lastRun, turns: view.lastRun.turn });
  const top = candidates.find((r) => options.runId === undefined || r.runId === options.runId);
  if (!top) throw new RunNotFoundError(key.sessionId, options.runId);
  const input = await runtime.store.readHistory(
    key,
    top.historyStart,
    top.historyStart + top.inputCount,
  );
  const { runs, lastStepAt } = await readRuns(runtime.store, key, top, options.onProgress);
  const file: ReplayFile = {
    format: REPLAY_FORMAT,
    version: REPLAY_VERSION,
    exportedAt: (options.clock ?? systemClock).now(),
    versions: {
      agentstate: packageVersion(),
      machine: MACHINE_VERSION,
      schema: CURRENT_SCHEMA_VERSION,
    },
    session: {
      sessionId: key.sessionId,
      ...(key.userId === undefined ? {} : { userId: key.userId }),
    },
    run: {
      runId: top.runId,
      agentName: top.agentName,
      status: top.status,
      startedAt: top.startedAt,
      ...(lastStepAt === undefined ? {} : { lastStepAt }),
      turns: top.turns,
      usage: usageOf(top.usage),
      ...(top.output === undefined ? {} : { output: top.output }),
      input,
    },
    runs,
  };
  return parseReplay(options.redact ? redactDeep(file, options.redact) : file);
}
