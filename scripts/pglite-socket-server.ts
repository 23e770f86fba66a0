import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

/**
 * A PostgreSQL server with pgvector, for the tests and the bench: PGlite (PostgreSQL compiled to
 * WebAssembly, in this process, in memory) with its `vector` extension, behind its socket server
 * on 127.0.0.1 at a free port, so `pg` connects to it as to any server. Its connections share
 * PGlite's one session (the socket server queues their messages).
 */
export interface PgliteSocketServer {
  /** `postgres://postgres@127.0.0.1:<port>/postgres` */
  url: string;
  /** Stops the socket server, then closes the database. */
  stop(): Promise<void>;
}

export async function startPgliteSocketServer(maxConnections: number): Promise<PgliteSocketServer> {
  const db = await PGlite.create({ extensions: { vector } });
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections });
  try {
    await server.start();
  } catch (error) {
    await db.close();
    throw error;
  }
  return {
    url: `postgres://postgres@${server.getServerConn()}/postgres`,
    async stop() {
      await server.stop();
      await db.close();
    },
  };
}
