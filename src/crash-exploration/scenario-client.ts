import type { Agent } from '../agent/agent.js';
import { MessageAnsweredError } from '../errors/message-answered-error.js';
import { SessionNotFoundError } from '../errors/session-errors.js';
import type { SessionKey, SessionStore } from '../persistence/session-store.js';
import type { FakeClock } from '../testing/fake-clock.js';
import { messageIdOf, stepKind, type ScenarioStep } from './crash-scenario.js';
import { callKey } from './execution-probe.js';
import type { LifeEvent } from './life-event.js';

/** What an operator answers for a call in doubt that its tool asks about (`onInterrupted: 'ask'`). */
export type InDoubtAnswer = 'retry' | 'fail';

export interface ScenarioClientOptions {
  agent: Agent;
  key: SessionKey;
  clock: FakeClock | undefined;
  inDoubt: InDoubtAnswer;
  /** Told of each decision made and each call in doubt answered. */
  note(event: LifeEvent): void;
}

/**
 * The people around a scenario's session, as the exploration plays them: the user who sends
 * (and, after a crash, resends with the same message id), the approver who decides a waiting
 * call (and, after a crash, decides it again only if it still waits), and the operator who
 * answers a call in doubt.
 */
export class ScenarioClient {
  constructor(private readonly options: ScenarioClientOptions) {}

  private get key(): SessionKey {
    return this.options.key;
  }

  /** Plays step `index` on `store` (`retry`: again, after a crash cut it off). */
  async apply(
    store: SessionStore,
    index: number,
    step: ScenarioStep,
    retry: boolean,
  ): Promise<void> {
    const { agent, clock } = this.options;
    const { sessionId, userId } = this.key;
    const options = { userId, store };
    switch (stepKind(step)) {
      case 'send': {
        const send = step as { send: string; messageId?: string };
        try {
          await agent.run(send.send, {
            sessionId,
            ...options,
            messageId: messageIdOf(send, index),
          });
        } catch (error) {
          // Resent after a crash: the first process had stored it, and recovery ran it.
          if (!(retry && error instanceof MessageAnsweredError)) throw error;
        }
        return;
      }
      case 'approve':
      case 'reject': {
        const approve = 'approve' in step;
        const name = approve ? step.approve : (step as { reject: string }).reject;
        const waiting = await this.waitingCall(store, name);
        if (waiting === undefined) {
          if (retry) return; // decided before the crash, and recovery went on from there
          throw new Error(`step ${index}: no call of "${name}" waits for a decision`);
        }
        const { callId, toolName } = waiting;
        const decision = approve ? 'approved' : 'rejected';
        this.options.note({ type: 'decision', key: callKey(toolName, callId), decision });
        if (approve) await agent.approve(sessionId, callId, options);
        else {
          const message = (step as { message?: string }).message;
          await agent.reject(sessionId, callId, { ...options, ...(message ? { message } : {}) });
        }
        return;
      }
      case 'advance':
        if (!retry) clock?.advance((step as { advance: number }).advance);
        return;
    }
  }

  /** The waiting call named `name` (its id, or its tool's name). */
  private async waitingCall(
    store: SessionStore,
    name: string,
  ): Promise<{ callId: string; toolName: string } | undefined> {
    const view = await this.options.agent
      .runtimeFor(store)
      .getSession(this.key)
      .catch((error: unknown) => {
        if (error instanceof SessionNotFoundError) return undefined; // nothing sent yet
        throw error;
      });
    const waiting = view?.runStatus?.interruptions ?? [];
    return waiting.find((i) => i.callId === name) ?? waiting.find((i) => i.toolName === name);
  }

  /** As an operator: answers the calls a recovered run paused on (in doubt, `'ask'`). */
  async answerInDoubt(store: SessionStore): Promise<void> {
    const { agent, inDoubt } = this.options;
    const { sessionId, userId } = this.key;
    for (let round = 0; round < 5; round++) {
      const view = await agent
        .runtimeFor(store)
        .getSession(this.key)
        .catch(() => undefined);
      const calls = view?.runStatus?.interruption === 'in_doubt' ? view.runStatus.callsInDoubt : [];
      if (!calls || calls.length === 0) return;
      for (const call of calls) {
        const key = callKey(call.toolName, call.callId);
        this.options.note({ type: 'in-doubt', key, resolution: `asked, ${inDoubt}` });
        await agent.resolveInDoubt(
          sessionId,
          { callId: call.callId, action: inDoubt },
          { userId, store },
        );
      }
    }
  }
}
