import type { Agent } from '../agent/agent.js';
import type { FakeClock } from '../testing/fake-clock.js';
import { MessageAnsweredError } from '../errors/message-answered-error.js';
import { SessionNotFoundError } from '../errors/session-errors.js';
import type { SessionCommit, SessionKey, SessionStore } from '../persistence/session-store.js';
import type { CrashScenario, ScenarioStep } from './crash-scenario.js';
import { messageIdOf, stepKind } from './crash-scenario.js';
import { CrashingStore, type CrashAt, type WriteRecord } from './crashing-store.js';
import type { CrashStoreSpace } from './crash-stores.js';
import type { EffectLedger } from './effect-ledger.js';
import { callKey, executionProbe, type Execution, type RuntimeFaults } from './execution-probe.js';
import { readOutcome, type ScenarioOutcome } from './scenario-outcome.js';

/** What an operator answers for a call in doubt that its tool asks about (`onInterrupted: 'ask'`). */
export type InDoubtAnswer = 'retry' | 'fail';

export interface ScenarioRunOptions {
  agent: Agent;
  scenario: CrashScenario;
  space: CrashStoreSpace;
  effects: EffectLedger | undefined;
  clock: FakeClock | undefined;
  clockStart: number;
  crashAt: CrashAt | undefined;
  inDoubt: InDoubtAnswer;
  faults: RuntimeFaults | undefined;
}

/** How one run of the scenario went (the reference, or one crash point's). */
export interface ScenarioRunResult {
  /** The durable writes of the first process, in order (the reference's are the boundaries). */
  writes: WriteRecord[];
  /** Where the first process died: the write, and the scenario step it died in. */
  crashed: { write: WriteRecord; step: number } | undefined;
  executions: Execution[];
  /**
   * Calls the runtime found in doubt after the crash, with what it did (`retried`, `failed`,
   * ...), by {@link callKey}.
   */
  inDoubt: Map<string, string>;
  /** The calls the scenario decided, in order, by {@link callKey}. */
  decisions: Map<string, 'approved' | 'rejected'>;
  outcome: ScenarioOutcome | undefined;
  /** What went wrong running the scenario (a step that failed, a recovery that did). */
  errors: string[];
}

const DIED = Symbol('died');

/** Lets the event loop turn a few times: writes a step leaves behind (lease release) happen. */
async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
}

/**
 * Runs a scenario once, in simulated processes on one store space: the first process dies at
 * `crashAt` (if any); the next opens the store again, recovers the run (`recover()`), retries
 * the step that was cut off (a message with the same id, a decision still waiting), resolves
 * calls in doubt as an operator would, and plays the rest of the scenario.
 */
export class ScenarioRun {
  private readonly result: ScenarioRunResult = {
    writes: [],
    crashed: undefined,
    executions: [],
    inDoubt: new Map(),
    decisions: new Map(),
    outcome: undefined,
    errors: [],
  };
  private life = -1;
  private current!: CrashingStore;
  private readonly key: SessionKey;

  constructor(private readonly options: ScenarioRunOptions) {
    this.key = {
      sessionId: options.scenario.sessionId ?? 'crash-scenario',
      userId: options.scenario.userId ?? 'crash-user',
    };
  }

  async run(): Promise<ScenarioRunResult> {
    const { options, result } = this;
    options.effects?.clear();
    options.clock?.set(options.clockStart);
    await this.openLife(options.crashAt);
    const steps = options.scenario.steps;
    try {
      for (let i = 0; i < steps.length; i++) {
        const done = await this.step(i, steps[i]!, false);
        if (done === DIED) {
          this.noteCrash(i);
          await this.recoverFrom(i, true);
          break;
        }
        await settle();
        if (this.current.dead) {
          this.noteCrash(i);
          await this.recoverFrom(i + 1, false);
          break;
        }
      }
      result.outcome = await readOutcome(options.agent, this.current.store, this.key);
    } catch (error) {
      result.errors.push(describe(error));
    } finally {
      this.current.kill();
      await options.space.destroy();
    }
    return result;
  }

  private noteCrash(step: number): void {
    const write = this.result.writes.at(-1);
    if (write && !this.result.crashed) this.result.crashed = { write, step };
  }

  private async openLife(crashAt: CrashAt | undefined): Promise<void> {
    this.life += 1;
    const life = this.life;
    const inner = await this.options.space.open();
    this.current = new CrashingStore(inner, {
      crashAt,
      onWrite: life === 0 ? (w) => this.result.writes.push(w) : undefined,
      onSaved: (commit) => this.noteJournal(commit),
      probe: executionProbe(
        life,
        {
          dead: () => this.lifeIsDead(life),
          decision: (key) => this.result.decisions.get(key),
          record: (execution) => this.result.executions.push(execution),
        },
        this.options.faults,
      ),
    });
  }

  private lifeIsDead(life: number): boolean {
    return life !== this.life || this.current.dead;
  }

  private noteJournal(commit: SessionCommit): void {
    for (const entry of commit.journal) {
      const output = entry.output as {
        callId?: string;
        result?: { name?: string };
        inDoubt?: { resolution?: string };
      };
      if (entry.kind === 'tool' && output.inDoubt && output.callId) {
        const key = callKey(output.result?.name ?? '', output.callId);
        // An operator's answer (noted as asked) is kept over the journal's record of it.
        if (!this.result.inDoubt.has(key))
          this.result.inDoubt.set(key, output.inDoubt.resolution ?? 'resolved');
      }
    }
  }

  /** Runs step `index` in the current process; `DIED` if the process died meanwhile. */
  private async step(index: number, step: ScenarioStep, retry: boolean): Promise<unknown> {
    const died = this.current.died.then(() => DIED);
    return Promise.race([this.apply(index, step, retry), died]);
  }

  private async apply(index: number, step: ScenarioStep, retry: boolean): Promise<void> {
    const { agent, clock } = this.options;
    const store = this.current.store;
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
        this.result.decisions.set(callKey(toolName, callId), approve ? 'approved' : 'rejected');
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

  /** A new process: open the store again, recover the run, retry the step cut off, go on. */
  private async recoverFrom(index: number, retry: boolean): Promise<void> {
    await this.openLife(undefined);
    const { agent } = this.options;
    const store = this.current.store;
    const recovered = await agent
      .runtimeFor(store)
      .recover({ olderThan: 0, userId: this.key.userId });
    for (const r of recovered)
      if (r.error !== undefined) this.result.errors.push(`recovery: ${describe(r.error)}`);
    await this.answerInDoubt();
    if (retry) {
      await this.apply(index, this.options.scenario.steps[index]!, true);
      await this.answerInDoubt();
    }
    const steps = this.options.scenario.steps;
    for (let i = retry ? index + 1 : index; i < steps.length; i++) {
      await this.apply(i, steps[i]!, false);
      await this.answerInDoubt();
    }
    await settle();
  }

  /** As an operator: answers the calls a recovered run paused on (in doubt, `'ask'`). */
  private async answerInDoubt(): Promise<void> {
    const { agent, inDoubt } = this.options;
    const store = this.current.store;
    const { sessionId, userId } = this.key;
    for (let round = 0; round < 5; round++) {
      const view = await agent
        .runtimeFor(store)
        .getSession(this.key)
        .catch(() => undefined);
      const calls = view?.runStatus?.interruption === 'in_doubt' ? view.runStatus.callsInDoubt : [];
      if (!calls || calls.length === 0) return;
      for (const call of calls) {
        this.result.inDoubt.set(callKey(call.toolName, call.callId), `asked, ${inDoubt}`);
        await agent.resolveInDoubt(
          sessionId,
          { callId: call.callId, action: inDoubt },
          { userId, store },
        );
      }
    }
  }
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return typeof code === 'string'
      ? `${error.name} (${code}): ${error.message}`
      : `${error.name}: ${error.message}`;
  }
  return String(error);
}
