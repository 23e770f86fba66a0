import type { AgentInputItem, Session } from '@openai/agents';
import Database from 'better-sqlite3';

/**
 * A SQLite database holding the peer's sessions (one row per history item) and each session's
 * last RunState string: what a durable app on `@openai/agents` writes. The package ships no
 * SQLite session in 0.14, so this is the app's own, on `better-sqlite3`. WAL with
 * `synchronous = NORMAL`: a write survives the process's crash, not the machine's power loss,
 * as agentstate's LevelDB writes (no fsync per write) do.
 */
export class SqliteSessionDb {
  private readonly db: Database.Database;
  private readonly selectAll: Database.Statement<[string], { item: string }>;
  private readonly selectLast: Database.Statement<[string, number], { item: string }>;
  private readonly insert: Database.Statement<[string, string]>;
  private readonly deleteLast: Database.Statement<[string], { item: string }>;
  private readonly deleteAll: Database.Statement<[string]>;
  private readonly upsertState: Database.Statement<[string, string]>;
  private readonly selectState: Database.Statement<[string], { state: string }>;
  private readonly insertMany: (sessionId: string, items: AgentInputItem[]) => void;

  constructor(path: string) {
    this.db = new Database(path);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS items (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        session_id TEXT NOT NULL,
        item TEXT NOT NULL
      );
      CREATE INDEX IF NOT EXISTS items_by_session ON items (session_id, id);
      CREATE TABLE IF NOT EXISTS run_states (
        session_id TEXT PRIMARY KEY,
        state TEXT NOT NULL
      );
    `);
    this.selectAll = this.db.prepare('SELECT item FROM items WHERE session_id = ? ORDER BY id');
    this.selectLast = this.db.prepare(
      'SELECT item FROM (SELECT id, item FROM items WHERE session_id = ? ORDER BY id DESC LIMIT ?) ORDER BY id',
    );
    this.insert = this.db.prepare('INSERT INTO items (session_id, item) VALUES (?, ?)');
    this.deleteLast = this.db.prepare(
      'DELETE FROM items WHERE id = (SELECT MAX(id) FROM items WHERE session_id = ?) RETURNING item',
    );
    this.deleteAll = this.db.prepare('DELETE FROM items WHERE session_id = ?');
    this.upsertState = this.db.prepare(
      'INSERT INTO run_states (session_id, state) VALUES (?, ?) ON CONFLICT (session_id) DO UPDATE SET state = excluded.state',
    );
    this.selectState = this.db.prepare('SELECT state FROM run_states WHERE session_id = ?');
    this.insertMany = this.db.transaction((sessionId: string, items: AgentInputItem[]) => {
      for (const item of items) this.insert.run(sessionId, JSON.stringify(item));
    });
  }

  /** The peer's `Session` for one conversation, backed by this database. */
  session(sessionId: string): Session {
    return {
      getSessionId: async () => sessionId,
      getItems: async (limit?: number) => {
        const rows =
          limit === undefined
            ? this.selectAll.all(sessionId)
            : limit <= 0
              ? []
              : this.selectLast.all(sessionId, limit);
        return rows.map((row) => JSON.parse(row.item) as AgentInputItem);
      },
      addItems: async (items: AgentInputItem[]) => {
        if (items.length > 0) this.insertMany(sessionId, items);
      },
      popItem: async () => {
        const row = this.deleteLast.get(sessionId);
        return row ? (JSON.parse(row.item) as AgentInputItem) : undefined;
      },
      clearSession: async () => {
        this.deleteAll.run(sessionId);
      },
    };
  }

  /** Saves a conversation's RunState string (`result.state.toString()`), replacing the last. */
  saveState(sessionId: string, state: string): void {
    this.upsertState.run(sessionId, state);
  }

  /** The conversation's last saved RunState string. */
  loadState(sessionId: string): string | undefined {
    return this.selectState.get(sessionId)?.state;
  }

  close(): void {
    this.db.close();
  }
}
