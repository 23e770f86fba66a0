import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import {
  startPgliteSocketServer,
  type PgliteSocketServer,
} from '../../scripts/pglite-socket-server.js';

/**
 * A PostgreSQL server with pgvector for one test file: PGlite (PostgreSQL compiled to
 * WebAssembly, in this process, in memory) with its `vector` extension, behind its socket
 * server on 127.0.0.1 at a free port, so `pg` connects to it as to any server. Started in
 * beforeAll, always stopped in afterAll.
 *
 * What it is not: one backend. Every connection shares PGlite's one session; its socket server
 * queues their messages and lets one connection's transaction finish before another's
 * statement runs (so `BEGIN ... COMMIT` on a checked-out client is safe), but session state
 * (`SET`, not `SET LOCAL`) is shared, `pg_backend_pid()` is the same for all, and a
 * notification is delivered to whichever connection's statement is running.
 */
export interface PgliteServer {
  /** `postgres://postgres@127.0.0.1:<port>/postgres` */
  readonly url: string;
  /** A pool of a few connections to it (ended in afterAll). */
  readonly pool: pg.Pool;
  /** A new schema name (an empty database for one test). */
  schema(prefix: string): string;
}

export function usePgliteServer(connections = 4): PgliteServer {
  let server: PgliteSocketServer | undefined;
  let pool: pg.Pool | undefined;
  let url: string | undefined;
  let schemas = 0;
  beforeAll(async () => {
    server = await startPgliteSocketServer(connections + 2);
    url = server.url;
    pool = new pg.Pool({ connectionString: url, max: connections });
    pool.on('error', () => undefined);
  }, 60_000);
  afterAll(async () => {
    await pool?.end();
    await server?.stop();
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the PGlite server is not started (beforeAll failed)');
    return value;
  };
  return {
    get url() {
      return started(url);
    },
    get pool() {
      return started(pool);
    },
    schema: (prefix) => `${prefix}_${++schemas}`,
  };
}
