import { mulberry32 } from '../../src/core/seeded-random.js';
import { CRASH_PHASES, type CrashPhase, type CrashPoint } from './crash-point.js';

/**
 * Picks the kill points of one crashed session from a seeded generator. The phases are fixed
 * up front: every phase at least twice, the rest drawn at random, shuffled; the last two kills
 * hit the final save (before it is written, and after it landed but before the output is
 * printed). Targets are drawn as the run goes, at or just past its progress, so a kill point
 * is always still ahead and no call is held twice.
 */
export class KillPlanner {
  readonly phases: CrashPhase[];
  private readonly random: () => number;

  constructor(
    seed: number,
    private readonly steps: number,
    readonly kills: number,
  ) {
    this.random = mulberry32(seed);
    const drawn: CrashPhase[] = [...CRASH_PHASES, ...CRASH_PHASES];
    while (drawn.length < kills - 2) drawn.push(this.pick(CRASH_PHASES));
    for (let i = drawn.length - 1; i > 0; i--) {
      const j = Math.floor(this.random() * (i + 1));
      [drawn[i], drawn[j]] = [drawn[j]!, drawn[i]!];
    }
    this.phases = [...drawn.slice(0, kills - 2), 'save-before', 'save-after'];
  }

  /**
   * The kill point of round `round` (0-based), given `next`: the lowest call number that has
   * not run yet. Undefined once all kills are planned: that round runs to the end.
   */
  point(round: number, next: number): CrashPoint | undefined {
    let phase = this.phases[round];
    if (phase === undefined) return undefined;
    if (round >= this.kills - 2) return { phase, target: this.steps };
    // Every call ran already: only the final model call and its save are left.
    if (next >= this.steps)
      return { phase: phase.startsWith('save') ? phase : 'model', target: this.steps };
    // A race kill lands a few markers in; keep it clear of the end of the run.
    if (phase === 'race' && next > this.steps - 4) phase = 'tool-after';
    if (phase === 'race') return { phase, target: 1 + Math.floor(this.random() * 12) };
    const target = Math.min(next + (this.random() < 0.5 ? 1 : 0), this.steps - 1);
    return { phase, target };
  }

  private pick<T>(options: readonly T[]): T {
    return options[Math.floor(this.random() * options.length)]!;
  }
}
