import { MemorySession, type Session } from '@openai/agents';

/**
 * Where the peer keeps its conversations: `memory`, or durable in `sqlite` (as the issue's
 * measurement did) or `level` (LevelDB, agentstate's own engine).
 */
export type PeerMode = 'memory' | 'sqlite' | 'level';

export const PEER_MODES: readonly PeerMode[] = ['memory', 'sqlite', 'level'];

export function isPeerMode(value: string | undefined): value is PeerMode {
  return (PEER_MODES as readonly (string | undefined)[]).includes(value);
}

/**
 * The peer's sessions and their RunState strings. `memory`: a `MemorySession` per conversation
 * and the RunState strings in a Map; `sqlite` and `level`: both in one database at `path`.
 * Either way the app saves `result.state.toString()` after each message.
 */
export interface PeerStore {
  session(sessionId: string): Session;
  saveState(sessionId: string, state: string): Promise<void>;
  /** Characters of RunState saved so far (the size of what a message serialises). */
  readonly stateChars: number;
  close(): Promise<void>;
}

export async function openPeerStore(mode: PeerMode, path: string): Promise<PeerStore> {
  let stateChars = 0;
  const counted = (save: (sessionId: string, state: string) => void | Promise<void>) => {
    return async (sessionId: string, state: string): Promise<void> => {
      await save(sessionId, state);
      stateChars += state.length;
    };
  };
  const store = (
    session: (sessionId: string) => Session,
    save: (sessionId: string, state: string) => void | Promise<void>,
    close: () => void | Promise<void>,
  ): PeerStore => ({
    session,
    saveState: counted(save),
    get stateChars() {
      return stateChars;
    },
    close: async () => close(),
  });
  switch (mode) {
    case 'memory': {
      const sessions = new Map<string, MemorySession>();
      const states = new Map<string, string>();
      return store(
        (sessionId) => {
          let session = sessions.get(sessionId);
          if (!session) sessions.set(sessionId, (session = new MemorySession({ sessionId })));
          return session;
        },
        (sessionId, state) => void states.set(sessionId, state),
        () => {
          sessions.clear();
          states.clear();
        },
      );
    }
    // Each driver is loaded when its mode is opened, as agentstate loads `level`.
    case 'sqlite': {
      const { SqliteSessionDb } = await import('./sqlite-session.js');
      const db = new SqliteSessionDb(path);
      return store(
        (sessionId) => db.session(sessionId),
        (sessionId, state) => db.saveState(sessionId, state),
        () => db.close(),
      );
    }
    case 'level': {
      const { LevelSessionDb } = await import('./level-session.js');
      const db = await LevelSessionDb.open(path);
      return store(
        (sessionId) => db.session(sessionId),
        (sessionId, state) => db.saveState(sessionId, state),
        () => db.close(),
      );
    }
  }
}
