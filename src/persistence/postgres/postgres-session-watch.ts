import * as keys from '../session-keys.js';
import type { SessionKey } from '../session-store.js';
import { SessionWatchers, type SessionWatches } from '../session-watches.js';
import type { PostgresDatabase } from './postgres-database.js';
import { checkedSessionId } from './postgres-leases.js';
import { md5 } from './postgres-rows.js';

/**
 * The sessions' saves on PostgreSQL, as every process sharing the store makes them: each save
 * statement NOTIFYs the schema's `saves` channel with the session's digest (md5 of
 * `${owner}!${sessionId}`, see `PostgresStatements.save`), and one LISTEN connection per store
 * object, open while anything is watched, hands each notification to that session's watchers.
 * A lost connection tells every watcher once (they poll, and watch again); behind a
 * transaction-mode pooler LISTEN cannot be had and `watchSession` rejects.
 */
export class PostgresSessionWatch implements SessionWatches {
  private readonly watchers = new SessionWatchers();
  /** The LISTEN connection while anything is watched (or being opened). */
  private listening: Promise<{ close(): Promise<void> }> | undefined;

  constructor(private readonly db: PostgresDatabase) {}

  async watchSession(
    key: SessionKey,
    onChange: () => void,
    onLost: (error: unknown) => void,
  ): Promise<() => Promise<void>> {
    const digest = md5(`${keys.ownerPart(key.userId)}!${checkedSessionId(key)}`);
    const remove = this.watchers.add(digest, onChange, onLost);
    const listening = this.listen();
    try {
      await listening;
    } catch (error) {
      remove();
      throw error;
    }
    return async () => {
      remove();
      if (this.watchers.watched || this.listening !== listening) return;
      this.listening = undefined;
      await (await listening).close();
    };
  }

  /** Ends the LISTEN connection (the store closes): every watcher is told it was lost. */
  async close(): Promise<void> {
    const listening = this.listening;
    this.listening = undefined;
    this.watchers.lost(new Error('the store was closed'));
    await (await listening?.catch(() => undefined))?.close();
  }

  /** The LISTEN connection, opened if there is none. */
  private listen(): Promise<{ close(): Promise<void> }> {
    if (this.listening) return this.listening;
    const listening = this.db.listen(
      this.db.channel('saves'),
      (digest) => this.watchers.changed(digest),
      (error) => {
        if (this.listening === listening) this.listening = undefined;
        this.watchers.lost(error);
      },
    );
    this.listening = listening;
    listening.catch(() => {
      if (this.listening === listening) this.listening = undefined;
    });
    return listening;
  }
}
