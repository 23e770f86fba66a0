import type { Tool as McpToolDescription } from '@modelcontextprotocol/sdk/types.js';
import type { Clock } from '../core/clock.js';

export type { McpToolDescription };

/**
 * A server's tool list, shared by every session of one toolkit: listed once, then reused until
 * `ttlMs` has passed (by the toolkit's clock), `invalidate()` is called (the toolkit's
 * `refresh()`, or the server's `notifications/tools/list_changed`), or a listing fails.
 * Concurrent sessions wait on one listing.
 */
export class McpToolListCache {
  private entry: { listed: Promise<McpToolDescription[]>; at: number } | undefined;

  constructor(
    private readonly ttlMs: number,
    private readonly clock: Clock,
  ) {}

  /** The cached list when fresh, else what `list` returns (then cached). */
  get(list: () => Promise<McpToolDescription[]>): Promise<McpToolDescription[]> {
    const now = this.clock.now();
    if (this.entry && now - this.entry.at < this.ttlMs) return this.entry.listed;
    const entry = { listed: list(), at: now };
    this.entry = entry;
    entry.listed.catch(() => {
      if (this.entry === entry) this.entry = undefined;
    });
    return entry.listed;
  }

  /** Forgets the list: the next session lists the server's tools again. */
  invalidate(): void {
    this.entry = undefined;
  }
}
