import { SessionNotFoundError } from '../errors/session-errors.js';
import { errorFromSerialized } from '../errors/error-from-serialized.js';
import type { SessionKey } from '../persistence/session-store.js';
import { cancelRun } from '../actions/cancel-run.js';
import { continueRun } from '../actions/continue-run.js';
import { sendMessage } from '../actions/send-message.js';
import type { RunResult } from '../session-host/run-result.js';
import type { ActionObservers } from '../session-host/action-observers.js';
import type { SessionRuntime } from '../sessions/session-runtime.js';
import type { SessionView } from '../runs/session-view.js';
import type { AgentActorContext, RunSettled } from './agent-actor-types.js';

/** What the actor's work came to: a run it ran (to its end or a pause), or one ended before. */
export type Worked =
  | { kind: 'ran'; result: RunResult<unknown>; settled: RunSettled }
  | { kind: 'ended'; settled: RunSettled };

/**
 * The work of an agent actor, done through its agent's runtime: what its context asks for (a
 * cancel, its stored run continued with the decisions taken, or a new message), and the stored
 * session it reads to see whether its run ended while nobody watched.
 */
export class AgentActorWork {
  constructor(private readonly runtime: () => SessionRuntime) {}

  /** The stored session of the actor's run (`undefined` if there is none yet). */
  storedSession(context: AgentActorContext): Promise<SessionView | undefined> {
    return this.runtime()
      .getSession(keyOf(context))
      .catch((error: unknown) => {
        if (error instanceof SessionNotFoundError) return undefined;
        throw error;
      });
  }

  /** Runs what the context asks for: cancel, go on with the stored run, or a new message. */
  async run(
    context: AgentActorContext,
    observers: Pick<ActionObservers, 'progress' | 'onRunSnapshot'>,
  ): Promise<Worked> {
    const key = keyOf(context);
    if (context.cancelling) {
      await this.runtime().execute(key, cancelRun());
      throw errorFromSerialized({
        name: 'RunCancelledError',
        code: 'RUN_CANCELLED',
        message: 'The run was cancelled',
      });
    }
    const view = await this.storedSession(context);
    if (view?.run) {
      // Ours, paused or stopped by a crash: go on from the journal, with the decisions taken
      // (already applied if a crash came after they were saved: then without them).
      const decisions = context.decisions;
      try {
        return ran(await this.runtime().execute(key, continueRun({ ...observers, decisions })));
      } catch (error) {
        const code = (error as { code?: unknown }).code;
        if (!decisions.length || (code !== 'STALE_DECISION' && code !== 'UNKNOWN_CALL'))
          throw error;
        return ran(await this.runtime().execute(key, continueRun(observers)));
      }
    }
    const ended = endedRun(view, context);
    if (ended) return { kind: 'ended', settled: ended };
    const message = sendMessage(context.input, {
      ...observers,
      ...(context.metadata ? { metadata: context.metadata } : {}),
    });
    return ran(await this.runtime().execute(key, message));
  }
}

/**
 * The outcome of the actor's run if it ended while nobody watched (the app's snapshot was
 * taken before the end); a failed or cancelled run throws its typed error.
 */
export function endedRun(
  view: SessionView | undefined,
  context: AgentActorContext,
): RunSettled | undefined {
  const last = view?.lastRun;
  if (!last || (last.runId !== context.runId && last.startedAt < context.createdAt)) {
    return undefined;
  }
  if (last.status !== 'completed') {
    throw errorFromSerialized(
      last.error ?? { name: 'RunCancelledError', code: 'RUN_CANCELLED', message: last.status },
    );
  }
  return {
    kind: 'done',
    output: {
      runId: last.runId,
      sessionId: context.sessionId,
      userId: context.userId,
      output: last.structured ?? last.output,
      turns: last.turn,
      usage: last.usage,
      subRuns: last.subRuns ?? [],
      lastAgent: last.activeAgent ?? last.agentName,
    },
  };
}

const keyOf = (c: AgentActorContext): SessionKey => ({ sessionId: c.sessionId, userId: c.userId });

function ran(result: RunResult<unknown>): Worked {
  return { kind: 'ran', result, settled: settled(result) };
}

/** How an action's result settles the actor: done, or paused with what it waits for. */
function settled(result: RunResult<unknown>): RunSettled {
  if (result.interrupted) {
    return {
      kind: 'paused',
      runId: result.id,
      reason: result.interruptionReason,
      interruptions: result.interruptions,
    };
  }
  return {
    kind: 'done',
    output: {
      runId: result.id,
      sessionId: result.sessionId,
      userId: result.userId,
      output: result.output,
      turns: result.turns,
      usage: result.usage,
      subRuns: result.subRuns,
      lastAgent: result.lastAgent,
    },
  };
}
