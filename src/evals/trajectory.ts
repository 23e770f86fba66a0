import { CHART_EVENT, callEvent, transitionLabel } from '../agent-check/chart-state.js';
import type { ReplayFile, ReplayModelCall, ReplayRun } from '../models/replay-file.js';

/** What one model answer asked for, as a step's trajectory reads it. */
export interface AnswerCalls {
  readonly toolCalls: readonly { readonly name: string }[];
}

/**
 * The trajectory of one model step of `agent`: the model's choice, as the run chart names it
 * (`triage: call ask_billing` per call asked for, or `triage: answers`).
 */
export function stepTrajectory(agent: string, answer: AnswerCalls): string[] {
  if (answer.toolCalls.length === 0) {
    return [transitionLabel({ agent, event: CHART_EVENT.answer })];
  }
  return answer.toolCalls.map((c) => transitionLabel({ agent, event: callEvent(c.name) }));
}

/** The journal entries of one run between a model answer and the next. */
interface Turn {
  readonly run: ReplayRun;
  readonly answer: ReplayModelCall;
  /** The step of the run's next model answer (none: the run's last). */
  readonly until: number;
}

const within = (turn: Turn, step: number): boolean => step > turn.answer.step && step < turn.until;

/**
 * The trajectory of a recorded run: the run chart's transitions it took, in order, named as the
 * agent check names them (`describeEvent`): `triage: call ask_billing`, `billing: refund awaits
 * approval`, `billing: approve refund`, `triage: ask_billing starts billing`, `billing:
 * answers`, `bills: pay_bill returns`. Sub-agent runs are walked where their call starts them.
 * The calls of one answer are taken one at a time, as the chart takes them (in the order the
 * model asked, a call still open last: one awaiting a human, or a sub-agent run not done).
 * Guardrail steps are not in a replay: their transitions are not either.
 */
export function trajectoryOf(replay: ReplayFile): string[] {
  const runs = new Map(replay.runs.map((r) => [r.runId, r]));
  const walk = (run: ReplayRun, seen: ReadonlySet<string>): string[] => {
    const out: string[] = [];
    run.modelCalls.forEach((answer, i) => {
      const turn: Turn = {
        run,
        answer,
        until: run.modelCalls[i + 1]?.step ?? Number.POSITIVE_INFINITY,
      };
      out.push(...turnTrajectory(turn, (runId) => childTrajectory(runId, seen)));
    });
    return out;
  };
  const childTrajectory = (runId: string, seen: ReadonlySet<string>): ChildRun | undefined => {
    const child = runs.get(runId);
    if (!child || seen.has(runId)) return undefined;
    return { agent: child.agentPath.at(-1)!, labels: walk(child, new Set([...seen, runId])) };
  };
  return walk(replay.runs[0]!, new Set([replay.runs[0]!.runId]));
}

/** A sub-agent run a call started: its agent and its trajectory. */
interface ChildRun {
  readonly agent: string;
  readonly labels: string[];
}

/** One answer's transitions: the answer itself, or each call's from asking to returning. */
function turnTrajectory(turn: Turn, child: (runId: string) => ChildRun | undefined): string[] {
  const { answer } = turn;
  const agent = answer.agent;
  if (answer.toolCalls.length === 0) return stepTrajectory(agent, answer);
  const done: string[] = [];
  const open: string[] = [];
  for (const call of answer.toolCalls) {
    const label = (event: string, starts?: string): string =>
      transitionLabel({ agent, event, tool: call.name, starts });
    const labels = [transitionLabel({ agent, event: callEvent(call.name) })];
    const result = turn.run.toolResults.find(
      (r) => r.callId === call.callId && within(turn, r.step),
    );
    const check = turn.run.approvals
      .filter((a) => within(turn, a.step))
      .flatMap((a) => a.calls)
      .find((c) => c.callId === call.callId);
    if (check?.needsApproval) {
      labels.push(label(CHART_EVENT.needsApproval));
      if (result) labels.push(label(result.rejected ? CHART_EVENT.reject : CHART_EVENT.approve));
    } else if (check) {
      labels.push(label(result?.rejected ? CHART_EVENT.denied : CHART_EVENT.noApproval));
    }
    const waiting = check?.needsApproval === true && !result;
    if (!waiting && !result?.rejected) {
      const started = call.subRunId === undefined ? undefined : child(call.subRunId);
      if (started) {
        labels.push(label(CHART_EVENT.starts, started.agent), ...started.labels);
      } else if (result) {
        labels.push(label(CHART_EVENT.returns));
      }
    }
    (result ? done : open).push(...labels);
  }
  return [...done, ...open];
}
