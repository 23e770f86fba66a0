import type { Agent } from '../agent/agent.js';
import type { FakeClock } from '../testing/fake-clock.js';
import type { SessionCommit, SessionKey } from '../persistence/session-store.js';
import type { CrashScenario, ScenarioStep } from './crash-scenario.js';
import { ScenarioClient, type InDoubtAnswer } from './scenario-client.js';
import { CrashingStore, type CrashAt } from './crashing-store.js';
import type { CrashStoreSpace } from './crash-stores.js';
import type { EffectLedger } from './effect-ledger.js';
import { callKey, executionProbe, type RuntimeFaults } from './execution-probe.js';
import { applyLifeEvent, type LifeEvent } from './life-event.js';
import { readOutcome } from './scenario-outcome.js';
import type { ChildLife } from './child-life.js';
import { followChildLife } from './follow-child-life.js';
import { describeError } from './describe-error.js';
import { reportingProbe } from './reporting-probe.js';
import type { Resume, ScenarioRunResult } from './scenario-run-result.js';

export type { InDoubtAnswer } from './scenario-client.js';

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
  /** Told of each fact of the first process as it happens (a child process prints them). */
  report?: ((event: LifeEvent) => void) | undefined;
  /** Runs the first process as a real child process (on the LevelDB folder of `space`). */
  child?: ChildLife | undefined;
}

export type { Resume, ScenarioRunResult } from './scenario-run-result.js';

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
  private readonly client: ScenarioClient;

  constructor(private readonly options: ScenarioRunOptions) {
    this.key = {
      sessionId: options.scenario.sessionId ?? 'crash-scenario',
      userId: options.scenario.userId ?? 'crash-user',
    };
    this.client = new ScenarioClient({
      agent: options.agent,
      key: this.key,
      clock: options.clock,
      inDoubt: options.inDoubt,
      note: (event) => this.note(event),
    });
  }

  async run(): Promise<ScenarioRunResult> {
    const { options, result } = this;
    options.effects?.clear();
    options.clock?.set(options.clockStart);
    try {
      const resume = options.child ? await this.childLife(options.child) : await this.firstLife();
      if (resume) await this.recoverFrom(resume.index, resume.retry);
      else if (options.child) await this.openLife(undefined);
      result.outcome = await readOutcome(options.agent, this.current.store, this.key);
    } catch (error) {
      result.errors.push(describeError(error));
    } finally {
      await this.close();
    }
    return result;
  }

  /**
   * Plays the scenario in the first process until it dies at `crashAt` (if it does); answers
   * where the next process takes it up (`undefined`: it played to the end).
   */
  async firstLife(): Promise<Resume | undefined> {
    await this.openLife(this.options.crashAt);
    const steps = this.options.scenario.steps;
    for (let i = 0; i < steps.length; i++) {
      this.note({ type: 'step', index: i, phase: 'start' });
      const done = await this.step(i, steps[i]!, false);
      if (done === DIED) {
        this.noteCrash(i);
        return { index: i, retry: true };
      }
      this.note({ type: 'step', index: i, phase: 'end' });
      await settle();
      if (this.current.dead) {
        this.noteCrash(i);
        return { index: i + 1, retry: false };
      }
    }
    return undefined;
  }

  /** The process ends: its handle dropped, the space destroyed. */
  async close(): Promise<void> {
    this.current?.kill();
    await this.options.space.destroy();
  }

  /** The first process as a real child process, killed at `crashAt`; this one is the next. */
  private async childLife(child: ChildLife): Promise<Resume | undefined> {
    const { options } = this;
    const cut = followChildLife(await child(options.crashAt), {
      ...options,
      note: (event) => this.note(event),
    });
    this.life = 0;
    if (!cut) return undefined;
    this.noteCrash(cut.step);
    return cut.resume;
  }

  /** A fact of the current process: kept in the result, and told to `report`. */
  private note(event: LifeEvent): void {
    applyLifeEvent(this.result, event);
    this.options.report?.(event);
  }

  private noteCrash(step: number): void {
    const write = this.result.writes.at(-1);
    if (write && !this.result.crashed) this.result.crashed = { write, step };
  }

  private async openLife(crashAt: CrashAt | undefined): Promise<void> {
    this.life += 1;
    const life = this.life;
    const inner = await this.options.space.open();
    const probe = executionProbe(
      life,
      {
        dead: () => this.lifeIsDead(life),
        decision: (key) => this.result.decisions.get(key),
        record: (execution) => this.note({ type: 'execution', execution }),
      },
      this.options.faults,
    );
    this.current = new CrashingStore(inner, {
      crashAt,
      onWrite: life === 0 ? (write) => this.note({ type: 'write', write }) : undefined,
      onSaved: (commit) => this.noteJournal(commit),
      probe: reportingProbe(probe, this.result.executions, (event) => this.note(event)),
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
          this.note({ type: 'in-doubt', key, resolution: output.inDoubt.resolution ?? 'resolved' });
      }
    }
  }

  /** Runs step `index` in the current process; `DIED` if the process died meanwhile. */
  private async step(index: number, step: ScenarioStep, retry: boolean): Promise<unknown> {
    const died = this.current.died.then(() => DIED);
    return Promise.race([this.client.apply(this.current.store, index, step, retry), died]);
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
      if (r.error !== undefined)
        this.note({ type: 'error', message: `recovery: ${describeError(r.error)}` });
    await this.client.answerInDoubt(store);
    if (retry) {
      await this.client.apply(store, index, this.options.scenario.steps[index]!, true);
      await this.client.answerInDoubt(store);
    }
    const steps = this.options.scenario.steps;
    for (let i = retry ? index + 1 : index; i < steps.length; i++) {
      await this.client.apply(store, i, steps[i]!, false);
      await this.client.answerInDoubt(store);
    }
    await settle();
  }
}
