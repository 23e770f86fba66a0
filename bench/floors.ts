import { join } from 'node:path';
import { createActor, fromPromise, toPromise } from 'xstate';
import { runMachine } from '../src/machines/run-machine.js';
import type {
  ApprovalCheckInput,
  ApprovalCheckOutput,
  DurableTimerInput,
  DurableTimerOutput,
  ModelStepInput,
  ModelStepOutput,
  ToolCallInput,
  ToolCallOutput,
} from '../src/machines/step-actor-io.js';
import type { RunMachineInput } from '../src/machines/run-types.js';
import type { KvOp } from '../src/persistence/kv/backends/kv-backend.js';
// The bench may use the backend directly: it is the only module that imports `level`.
import { LevelBackend } from '../src/persistence/kv/backends/level-backend.js';
import { tempDir } from './fixtures.js';
import { now } from './stats.js';

/**
 * The physical floors a workload is compared with: the LevelDB batches it wrote, replayed
 * with nothing else, and the run machine's transitions with instant step actors.
 */
export interface Floor {
  /** Replaying the workload's batches (same count, same keys and values) on a raw LevelDB. */
  levelMs: number;
  /** The same number of runs of the bare run machine (2 model steps + 1 tool step each). */
  xstateMs: number;
  totalMs: number;
  batches: number;
  bytes: number;
}

/** Writes `batches` one after another, each awaited, to a fresh LevelDB; returns the time in ms. */
export async function replayBatches(
  batches: readonly KvOp[][],
): Promise<{ ms: number; bytes: number }> {
  const dir = await tempDir('agentstate-floor-');
  const backend = new LevelBackend(join(dir.path, 'db'));
  try {
    await backend.open();
    const start = now();
    for (const ops of batches) await backend.write(ops);
    const ms = now() - start;
    return { ms, bytes: backend.stats().bytesWritten };
  } finally {
    await backend.close();
    await dir.cleanup();
  }
}

const usage = { inputTokens: 10, outputTokens: 5, cachedTokens: 0, costUsd: 0 };

/** The run machine with instant actors: turn 0 asks for `add`, turn 1 answers. */
export const bareRunMachine = runMachine().provide({
  actors: {
    modelStep: fromPromise<ModelStepOutput, ModelStepInput>(async ({ input }) =>
      input.turn === 0
        ? {
            toolCalls: [
              {
                type: 'tool_call',
                callId: `call_${input.step}_0`,
                name: 'add',
                arguments: '{"a":1,"b":2}',
                check: false,
              },
            ],
            usage,
          }
        : { text: 'The sum is 3.', toolCalls: [], usage },
    ),
    toolCall: fromPromise<ToolCallOutput, ToolCallInput>(async ({ input }) => ({
      callId: input.call.callId,
      isError: false,
    })),
    approvalCheck: fromPromise<ApprovalCheckOutput, ApprovalCheckInput>(async ({ input }) => ({
      decisions: input.calls.map((c) => ({ callId: c.callId, needsApproval: false })),
    })),
    durableTimer: fromPromise<DurableTimerOutput, DurableTimerInput>(async () => ({ firedAt: 0 })),
  },
});

function runInput(i: number): RunMachineInput {
  return {
    runId: `run-${i}`,
    sessionId: 'floor',
    agentName: 'bench',
    maxTurns: 10,
    historyStart: i * 4,
    startedAt: 0,
    inputCount: 1,
    budget: {},
    standingDecisions: {},
  };
}

/** Runs the bare run machine `runs` times, one after another; returns the time in ms. */
export async function bareRuns(runs: number): Promise<number> {
  const start = now();
  for (let i = 0; i < runs; i++) {
    const actor = createActor(bareRunMachine, { input: runInput(i) });
    const done = toPromise(actor);
    actor.start();
    const output = await done;
    if (output.status !== 'completed' || output.turn !== 2) {
      throw new Error(`bare run ended ${output.status} after ${output.turn} turn(s)`);
    }
  }
  return now() - start;
}

/** Both floors for a workload that wrote `batches` and executed `runs` runs. */
export async function measureFloor(batches: readonly KvOp[][], runs: number): Promise<Floor> {
  const level = await replayBatches(batches);
  const xstateMs = await bareRuns(runs);
  return {
    levelMs: level.ms,
    xstateMs,
    totalMs: level.ms + xstateMs,
    batches: batches.length,
    bytes: level.bytes,
  };
}
