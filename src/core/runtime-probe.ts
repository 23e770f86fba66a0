import type { StepKind } from './durability-policy.js';

/** A tool call as a probe sees it, as it is about to run and once it returned. */
export interface ProbedToolCall {
  runId: string;
  callId: string;
  tool: string;
  /** The agents from the session's down to the one whose tool it is (sub-agent runs). */
  agentPath: readonly string[] | undefined;
  /** The tool says running a call twice has the effect of running it once (`idempotent`). */
  idempotent: boolean;
}

/**
 * Test-only: what crash exploration (`exploreCrashes`) learns from the runtime and the faults
 * its own tests inject into it. Carried by the store object a test hands the runtime (under
 * {@link RUNTIME_PROBE}, see {@link withRuntimeProbe}), so nothing is global and an
 * application's store never has one. Not exported by the package.
 */
export interface RuntimeProbe {
  /**
   * Called as a tool call is about to run its `execute`; the call runs when the promise
   * settles (a simulated crash answers one that never settles: a dead process runs nothing).
   */
  toolStarting?(call: ProbedToolCall): Promise<void> | void;
  /** Called once a tool call's `execute` returned or threw. */
  toolFinished?(call: ProbedToolCall): void;
  /**
   * A fault: true skips the durability barrier before a step of `kind` (the save of what was
   * recorded so far), so the step starts before its start is stored. Only tests that check
   * crash exploration finds such a fault set it.
   */
  skipsDurable?(kind: StepKind): boolean;
}

/** The property a store carries its probe under. */
export const RUNTIME_PROBE: unique symbol = Symbol('agentstate.runtimeProbe');

/** The probe `store` carries, if any. */
export function runtimeProbeOf(store: object): RuntimeProbe | undefined {
  return (store as { [RUNTIME_PROBE]?: RuntimeProbe })[RUNTIME_PROBE];
}

/** Runs `execute` of a tool call between the probe's two calls (just `execute` without one). */
export async function probedToolCall<T>(
  probe: RuntimeProbe | undefined,
  call: ProbedToolCall,
  execute: () => Promise<T>,
): Promise<T> {
  if (!probe) return execute();
  await probe.toolStarting?.(call);
  try {
    return await execute();
  } finally {
    probe.toolFinished?.(call);
  }
}
