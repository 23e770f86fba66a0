/** The fields a RunContext carries. `metadata` is an opaque, app-specific bag. */
export interface RunContextInit {
  runId?: string | undefined;
  sessionId?: string | undefined;
  userId?: string | undefined;
  metadata?: Readonly<Record<string, unknown>> | undefined;
}

/** Overrides for `withOverrides`: an omitted field is kept, an explicit `undefined` clears it. */
export type RunContextOverrides = Partial<RunContextInit>;

/**
 * Immutable scope of one run: which run, which conversation, which user. Readable from any
 * tool, hook or sub-agent through `getRunContext()`.
 */
export class RunContext {
  readonly runId: string;
  readonly sessionId: string | undefined;
  readonly userId: string | undefined;
  readonly metadata: Readonly<Record<string, unknown>>;

  constructor(init: RunContextInit = {}) {
    this.runId = init.runId ?? '';
    this.sessionId = init.sessionId;
    this.userId = init.userId;
    this.metadata = Object.freeze({ ...(init.metadata ?? {}) });
    Object.freeze(this);
  }

  /** Shorthand for `metadata[key]`. */
  get<T = unknown>(key: string): T | undefined {
    return this.metadata[key] as T | undefined;
  }

  /**
   * Derives a new context, e.g. for a sub-agent. A field absent from `overrides` keeps its
   * value; a field present with `undefined` is cleared.
   * @example ctx.withOverrides({ sessionId: `${ctx.sessionId}/researcher` })
   */
  withOverrides(overrides: RunContextOverrides): RunContext {
    const pick = <K extends keyof RunContextInit>(key: K): RunContextInit[K] =>
      Object.prototype.hasOwnProperty.call(overrides, key) ? overrides[key] : this[key];
    return new RunContext({
      runId: pick('runId'),
      sessionId: pick('sessionId'),
      userId: pick('userId'),
      metadata: pick('metadata'),
    });
  }

  toJSON(): RunContextInit {
    return {
      runId: this.runId,
      sessionId: this.sessionId,
      userId: this.userId,
      metadata: this.metadata,
    };
  }
}
