import { describe, it } from 'vitest';
import { PostgresSessionStore } from '../../../src/persistence/postgres/postgres-session-store.js';
import { ownerPart } from '../../../src/persistence/session-keys.js';
import { storeContract } from '../../../src/store.js';
import { usePgliteServer } from '../../helpers/pglite-server.js';

const server = usePgliteServer();

storeContract(
  { describe, it },
  {
    name: 'PostgresSessionStore on PGlite',
    open: async (clock) => {
      const schema = server.schema('contract');
      const store = await PostgresSessionStore.open({ pool: server.pool, schema, clock });
      const pool = server.pool;
      const table = (name: string) => `"${schema}".${name}`;
      return {
        store,
        damageRecord: async (key, text) => {
          await pool.query(
            `UPDATE ${table('agentstate_sessions')} SET record = $3 WHERE owner = $1 AND session_id = $2`,
            [ownerPart(key.userId), key.sessionId, text],
          );
        },
        damageHistoryItem: async (key, position, text) => {
          await pool.query(
            `UPDATE ${table('agentstate_history')} SET item = $4 WHERE owner = $1 AND session_id = $2 AND seq = $3`,
            [ownerPart(key.userId), key.sessionId, position, text],
          );
        },
        damageAudit: async (userId, text) => {
          await pool.query(`UPDATE ${table('agentstate_audit')} SET entry = $2 WHERE owner = $1`, [
            ownerPart(userId),
            text,
          ]);
        },
        fileDeadline: async (key, deadline) => {
          await pool.query(
            `UPDATE ${table('agentstate_sessions')} SET approval_deadline = $3 WHERE owner = $1 AND session_id = $2`,
            [ownerPart(key.userId), key.sessionId, deadline],
          );
        },
        cleanup: async () => {
          await store.close();
          await pool.query(`DROP SCHEMA "${schema}" CASCADE`);
        },
      };
    },
    supports: {
      leases: true,
      leaseReads: true,
      deadlineIndex: true,
      decisionInbox: true,
      messageInbox: true,
      queuedSessions: true,
      sessionWatches: true,
      memory: true,
    },
  },
);
