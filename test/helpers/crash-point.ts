/**
 * Kill points of the crash test, shared by the parent (which picks them) and the worker (which
 * stops at them). A worker started with `CRASH_AT=<phase>:<target>` prints a `kill-me` line at
 * the chosen point; the parent then sends SIGKILL. Hold phases stop there (the event loop keeps
 * running, as it would during a slow disk or model), so the kill lands exactly at that point.
 */
export const CRASH_PHASES = [
  /** Inside the model call that asks for call `n >= target` (the final answer is `n = steps`). */
  'model',
  /** Inside the tool, before it appends its line (a call in flight without side effect yet). */
  'tool-before',
  /** Inside the tool, after it appended its line and before it returns (mid-tool-call). */
  'tool-after',
  /** In `store.save`, before the batch with a journal entry for `n >= target` is written. */
  'save-before',
  /** `kill-me` right after that batch was handed to LevelDB: the kill races the write. */
  'save-during',
  /** After that batch was written, before the runtime learns it (mid-save, seen from JS). */
  'save-after',
  /** `kill-me` at the target-th progress marker of the process, without waiting there. */
  'race',
] as const;

export type CrashPhase = (typeof CRASH_PHASES)[number];

/** The session the crash worker runs (its `session` scenario). */
export const CRASH_SESSION = { sessionId: 'crash', userId: 'u' } as const;

export interface CrashPoint {
  phase: CrashPhase;
  /** A call number for all phases but `race`, whose target is a marker count. */
  target: number;
}

/** Markers printed after a `race` / `save-during` kill request before the worker holds anyway. */
export const RACE_BACKSTOP = 3;

export function formatCrashPoint(point: CrashPoint): string {
  return `${point.phase}:${point.target}`;
}

export function parseCrashPoint(text: string | undefined): CrashPoint | undefined {
  if (!text) return undefined;
  const [phase, target] = text.split(':');
  if (!CRASH_PHASES.includes(phase as CrashPhase) || !/^\d+$/.test(target ?? '')) {
    throw new Error(`CRASH_AT must be <phase>:<number>, got "${text}"`);
  }
  return { phase: phase as CrashPhase, target: Number(target) };
}

/** Blocks the caller until the process is killed, while the event loop keeps running. */
function holdForever(): Promise<never> {
  return new Promise<never>(() => {
    setInterval(() => undefined, 60_000);
  });
}

/**
 * The worker's side: every checkpoint prints a progress marker; the configured one prints
 * `kill-me` and, for hold phases, never returns. After a non-holding request (`race`,
 * `save-during`) the worker holds at the next save end or a few markers later, so a round
 * always ends in a kill and never finishes the run by accident.
 */
export class CrashCheckpoints {
  private markers = 0;
  private requestedAt: number | undefined;

  constructor(
    private readonly point: CrashPoint | undefined,
    private readonly write: (line: string) => void,
  ) {}

  async reach(phase: Exclude<CrashPhase, 'race'>, n: number): Promise<void> {
    this.markers += 1;
    this.write(`at ${phase} ${n}`);
    const point = this.point;
    if (!point) return;
    if (this.requestedAt !== undefined) {
      if (phase === 'save-after' || this.markers >= this.requestedAt + RACE_BACKSTOP)
        return this.hold('backstop');
      return;
    }
    if (
      point.phase === 'race'
        ? this.markers >= point.target
        : point.phase === phase && n >= point.target
    ) {
      if (point.phase === 'race' || point.phase === 'save-during') {
        this.requestedAt = this.markers;
        this.write('kill-me');
        return;
      }
      return this.hold('kill-me');
    }
  }

  private async hold(line: string): Promise<never> {
    this.write(line);
    return holdForever();
  }
}
