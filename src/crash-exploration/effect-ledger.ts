/** One effect a tool reported to the ledger. */
export interface LedgerEntry {
  /** The call that caused it (`ToolExecuteOptions.callId`). */
  callId: string;
  /** What happened, in the tool's words (`'charge'`, `'email sent'`). */
  effect: string;
  /** Plain JSON the tool adds (an amount, a recipient); compared with the reference run's. */
  detail?: unknown;
  /** The idempotency key the effect was applied under, if any. */
  key?: string | undefined;
  /** True when an earlier entry with the same key made this one a no-op (an idempotent API). */
  repeated: boolean;
}

/**
 * The outside world as crash exploration (`exploreCrashes`) sees it: the tools of a scenario
 * report each side effect they cause here, and the exploration checks that no finished effect
 * happened twice across a crash and a recovery. An effect recorded with a `key` behaves like an
 * API with idempotency keys: the same key again is a no-op (`record` answers `false`), so a
 * tool that passes its call id as the key is idempotent in fact, not only in name.
 *
 * @example
 * const effects = new EffectLedger();
 * const refund = tool({
 *   name: 'refund', description: 'Refunds an order', parameters: z.object({ order: z.string() }),
 *   execute: ({ order }, { callId }) => {
 *     effects.record(callId, 'refund', { order });
 *     return `refunded ${order}`;
 *   },
 * });
 */
export class EffectLedger {
  private list: LedgerEntry[] = [];
  private readonly keys = new Set<string>();

  /**
   * Records that call `callId` caused `effect` (with its `detail`). With `options.key`, an
   * effect already recorded under that key is not applied again: the entry is kept as
   * `repeated` and the answer is `false`. Answers `true` when the effect was applied.
   */
  record(
    callId: string,
    effect: string,
    detail?: unknown,
    options: { key?: string | undefined } = {},
  ): boolean {
    if (typeof callId !== 'string' || callId === '')
      throw new TypeError('EffectLedger.record: `callId` must be the call id the tool was given');
    if (typeof effect !== 'string' || effect === '')
      throw new TypeError('EffectLedger.record: `effect` must be a non-empty string');
    const { key } = options;
    const repeated = key !== undefined && this.keys.has(key);
    if (key !== undefined) this.keys.add(key);
    this.list.push({
      callId,
      effect,
      ...(detail === undefined ? {} : { detail: structuredClone(detail) }),
      ...(key === undefined ? {} : { key }),
      repeated,
    });
    return !repeated;
  }

  /** Whether an effect was applied under `key` (what a tool's `reconcile` looks up). */
  has(key: string): boolean {
    return this.keys.has(key);
  }

  /** The effects recorded since the exploration's current point began, in order. */
  entries(): readonly LedgerEntry[] {
    return this.list;
  }

  /** Forgets every effect: the exploration calls it as each point (and the reference) begins. */
  clear(): void {
    this.list = [];
    this.keys.clear();
  }
}
