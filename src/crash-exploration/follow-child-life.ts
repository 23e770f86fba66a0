import type { FakeClock } from '../testing/fake-clock.js';
import type { ChildLifeEnd } from './child-life.js';
import type { CrashScenario } from './crash-scenario.js';
import type { EffectLedger } from './effect-ledger.js';
import type { LifeEvent } from './life-event.js';
import type { Resume } from './scenario-run-result.js';

/** What the parent keeps of a child's life, and tells its facts to. */
export interface ChildLifeFollower {
  scenario: CrashScenario;
  /** The parent's ledger: the child's effects happened, for the process that recovers too. */
  effects: EffectLedger | undefined;
  /** The parent's clock: moved as the child's was, by the `advance` steps it began. */
  clock: FakeClock | undefined;
  note(event: LifeEvent): void;
}

/**
 * Takes over what a first process run as a child did: its facts noted, its effects recorded in
 * the parent's ledger (keys and all, so a repeat under a key stays a no-op), the clock moved.
 * Answers, when the child was killed at its crash point, the step it died in and where the
 * next process takes the scenario up: the step again if it had not returned, else the next.
 */
export function followChildLife(
  end: ChildLifeEnd,
  follower: ChildLifeFollower,
): { step: number; resume: Resume } | undefined {
  let started: number | undefined;
  let ended: number | undefined;
  for (const event of end.events) {
    follower.note(event);
    if (event.type === 'effect') {
      const { callId, effect, detail, key } = event.entry;
      follower.effects?.record(callId, effect, detail, { key });
    } else if (event.type === 'step' && event.phase === 'start') {
      started = event.index;
      const step = follower.scenario.steps[event.index];
      if (step && 'advance' in step) follower.clock?.advance(step.advance);
    } else if (event.type === 'step') ended = event.index;
  }
  if (end.problem !== undefined) follower.note({ type: 'error', message: end.problem });
  if (!end.killed || started === undefined) return undefined;
  const resume =
    ended === started ? { index: started + 1, retry: false } : { index: started, retry: true };
  return { step: started, resume };
}
