import type { AgentInputItem, Session } from '@openai/agents';
import { Level } from 'level';

/** Sequence numbers as fixed-width keys, so that LevelDB's order is the history's order. */
const seqKey = (sessionId: string, seq: number): string =>
  `items!${sessionId}!${seq.toString().padStart(12, '0')}`;

/**
 * A LevelDB database (the `level` package, agentstate's own store engine, with its prebuilt
 * binary inside the registry package) holding the peer's sessions, one key per history item,
 * and each session's last RunState string. Written as agentstate writes LevelDB: one batch
 * per call, no fsync. The app's own, as the SQLite one: the package ships neither.
 */
export class LevelSessionDb {
  private readonly db: Level<string, string>;
  /** The next sequence number of each session this process has written to or read. */
  private readonly next = new Map<string, number>();

  private constructor(db: Level<string, string>) {
    this.db = db;
  }

  static async open(path: string): Promise<LevelSessionDb> {
    const db = new Level<string, string>(path, { valueEncoding: 'utf8' });
    await db.open();
    return new LevelSessionDb(db);
  }

  private range(sessionId: string): { gt: string; lt: string } {
    return { gt: `items!${sessionId}!`, lt: `items!${sessionId}!~` };
  }

  private async entries(sessionId: string, limit?: number): Promise<[string, string][]> {
    const options = limit === undefined ? {} : { limit, reverse: true };
    const rows = await this.db.iterator({ ...this.range(sessionId), ...options }).all();
    if (limit !== undefined) rows.reverse();
    return rows;
  }

  private async nextSeq(sessionId: string): Promise<number> {
    const known = this.next.get(sessionId);
    if (known !== undefined) return known;
    const [last] = await this.db.keys({ ...this.range(sessionId), reverse: true, limit: 1 }).all();
    const seq = last ? Number(last.slice(last.lastIndexOf('!') + 1)) + 1 : 0;
    this.next.set(sessionId, seq);
    return seq;
  }

  /** The peer's `Session` for one conversation, backed by this database. */
  session(sessionId: string): Session {
    return {
      getSessionId: async () => sessionId,
      getItems: async (limit?: number) => {
        if (limit !== undefined && limit <= 0) return [];
        const rows = await this.entries(sessionId, limit);
        return rows.map(([, value]) => JSON.parse(value) as AgentInputItem);
      },
      addItems: async (items: AgentInputItem[]) => {
        if (items.length === 0) return;
        let seq = await this.nextSeq(sessionId);
        const batch = items.map((item) => ({
          type: 'put' as const,
          key: seqKey(sessionId, seq++),
          value: JSON.stringify(item),
        }));
        this.next.set(sessionId, seq);
        await this.db.batch(batch);
      },
      popItem: async () => {
        const [last] = await this.entries(sessionId, 1);
        if (!last) return undefined;
        await this.db.del(last[0]);
        this.next.delete(sessionId);
        return JSON.parse(last[1]) as AgentInputItem;
      },
      clearSession: async () => {
        await this.db.clear(this.range(sessionId));
        this.next.delete(sessionId);
      },
    };
  }

  /** Saves a conversation's RunState string (`result.state.toString()`), replacing the last. */
  async saveState(sessionId: string, state: string): Promise<void> {
    await this.db.put(`state!${sessionId}`, state);
  }

  async close(): Promise<void> {
    await this.db.close();
  }
}
