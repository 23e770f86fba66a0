import { SessionNotFoundError } from '../../errors/session-errors.js';
import * as keys from '../session-keys.js';
import type { SessionKey } from '../session-store.js';
import { SessionWatchers, type SessionWatches } from '../session-watches.js';
import type { PostgresDatabase } from './postgres-database.js';
import { checkedSessionId } from './postgres-leases.js';
import { md5 } from './postgres-rows.js';
import type { SharedListen, SharedWatch } from './notifications/shared-listen.js';

/**
 * The sessions' saves on PostgreSQL, as every process sharing the store makes them: a save of
 * a watched session NOTIFYs the schema's `saves` channel with the session's digest (md5 of
 * `${owner}!${sessionId}`, see `PostgresStatements.save`), and the store's one LISTEN
 * connection (`SharedListen`, shared with the decision inbox), joined while anything is
 * watched, hands each notification to that session's watchers. A watch counts itself on the
 * session's row (`watchers`) once listening, and uncounts itself when stopped or lost: a save
 * of a session nobody watches notifies nobody (a watch whose process died stays counted, its
 * session's saves notify as they all did before). A lost connection tells every watcher once
 * (they poll, and watch again); behind a transaction-mode pooler LISTEN cannot be had and
 * `watchSession` rejects, as it does for a session not stored.
 */
export class PostgresSessionWatch implements SessionWatches {
  private readonly watchers = new SessionWatchers();
  /** This watch's share of the store's LISTEN connection while anything is watched. */
  private joined: Promise<SharedWatch> | undefined;
  /** Uncountings under way (the store's close waits for them). */
  private readonly leaving = new Set<Promise<void>>();

  /**
   * @param listening the store's LISTEN connection (on the saves channel among others)
   * @param channel the saves channel
   */
  constructor(
    private readonly db: PostgresDatabase,
    private readonly listening: SharedListen,
    private readonly channel: string,
  ) {}

  async watchSession(
    key: SessionKey,
    onChange: () => void,
    onLost: (error: unknown) => void,
  ): Promise<() => Promise<void>> {
    const sessionId = checkedSessionId(key);
    const owner = keys.ownerPart(key.userId);
    let counted = false;
    const uncount = (): Promise<void> => {
      if (!counted) return Promise.resolve();
      counted = false;
      const leaving = this.count(key, owner, -1).then(noop, noop);
      this.leaving.add(leaving);
      return leaving.finally(() => this.leaving.delete(leaving));
    };
    const remove = this.watchers.add(md5(`${owner}!${sessionId}`), onChange, (error) => {
      void uncount();
      onLost(error);
    });
    const joined = this.join();
    try {
      await joined;
      counted = await this.count(key, owner, 1);
      if (!counted) throw new SessionNotFoundError(sessionId);
    } catch (error) {
      remove();
      await this.leaveIfIdle(joined);
      throw error;
    }
    return async () => {
      remove();
      await uncount();
      await this.leaveIfIdle(joined);
    };
  }

  /** Ends the watches (the store closes): every watcher is told it was lost. */
  async close(): Promise<void> {
    const joined = this.joined;
    this.joined = undefined;
    this.watchers.lost(new Error('the store was closed'));
    await Promise.all(this.leaving);
    await (await joined?.catch(() => undefined))?.close();
  }

  /** Counts a watcher on the session's row (`delta` 1) or uncounts it (-1); false: no row. */
  private async count(key: SessionKey, owner: string, delta: 1 | -1): Promise<boolean> {
    const { rows } = await this.db.query('watch a session', key, () => this.db.sql.watchers(), [
      owner,
      key.sessionId,
      delta,
    ]);
    return rows.length === 1;
  }

  /** Joins the store's LISTEN connection, if this has not. */
  private join(): Promise<SharedWatch> {
    if (this.joined) return this.joined;
    const joined = this.listening.watch(
      (channel, digest) => {
        if (channel === this.channel) this.watchers.changed(digest);
      },
      (error) => {
        if (this.joined === joined) this.joined = undefined;
        this.watchers.lost(error);
      },
    );
    this.joined = joined;
    joined.catch(() => {
      if (this.joined === joined) this.joined = undefined;
    });
    return joined;
  }

  /** Leaves the store's LISTEN connection once nothing is watched. */
  private async leaveIfIdle(joined: Promise<SharedWatch>): Promise<void> {
    if (this.watchers.watched || this.joined !== joined) return;
    this.joined = undefined;
    await (await joined.catch(() => undefined))?.close();
  }
}

const noop = (): void => undefined;
