import type { StepKind } from '../core/durability-policy.js';
import type { ProbedToolCall, RuntimeProbe } from '../core/runtime-probe.js';

/**
 * A call of a scenario's session: its tool and call id (call ids count per run, so a session's
 * sub-agent runs repeat them; the tool tells them apart).
 */
export const callKey = (tool: string, callId: string): string => `${tool} ${callId}`;

/** A tool call's `execute` as the exploration saw it, in one simulated process. */
export interface Execution {
  /** The simulated process (0: the one that may crash, 1: the one that recovers). */
  life: number;
  callId: string;
  tool: string;
  agentPath: readonly string[] | undefined;
  /** `finished`: its `execute` returned or threw (in the dead process too). */
  finished: boolean;
  /** Its tool claims to be idempotent (a second run is harmless; the ledger checks the claim). */
  idempotent: boolean;
  /** The scenario's decision on the call when it started (`undefined`: none yet). */
  decision: 'approved' | 'rejected' | undefined;
}

/** Test-only faults the exploration injects into the runtime (its own tests set them). */
export interface RuntimeFaults {
  /** Step kinds whose durability barrier is skipped (`'tool'`: a tool runs before its start is saved). */
  skipDurable?: readonly StepKind[] | undefined;
}

/** What the probe of one simulated process reads of the exploration and writes to it. */
export interface ProbeTarget {
  /** Whether the process died (a dead process starts nothing). */
  dead(): boolean;
  /** The scenario's decision on a call so far. */
  decision(key: string): 'approved' | 'rejected' | undefined;
  /** Keeps an execution (the probe marks it finished later). */
  record(execution: Execution): void;
}

const never = (): Promise<void> => new Promise<void>(() => undefined);

/**
 * The runtime probe of simulated process `life`: it notes each tool call's `execute` (started,
 * finished, under which decision), holds any a dead process would start, and injects `faults`.
 */
export function executionProbe(
  life: number,
  target: ProbeTarget,
  faults: RuntimeFaults | undefined,
): RuntimeProbe {
  const open = new Map<string, Execution>();
  const skipped = faults?.skipDurable;
  return {
    toolStarting: (call: ProbedToolCall) => {
      if (target.dead()) return never();
      const execution: Execution = {
        life,
        callId: call.callId,
        tool: call.tool,
        agentPath: call.agentPath,
        finished: false,
        idempotent: call.idempotent,
        decision: target.decision(callKey(call.tool, call.callId)),
      };
      target.record(execution);
      open.set(`${call.runId}:${call.callId}`, execution);
    },
    toolFinished: (call: ProbedToolCall) => {
      const execution = open.get(`${call.runId}:${call.callId}`);
      if (execution) execution.finished = true;
    },
    ...(skipped ? { skipsDurable: (kind: StepKind) => skipped.includes(kind) } : {}),
  };
}
