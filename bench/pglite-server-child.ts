/**
 * PGlite (PostgreSQL compiled to WebAssembly) with the pgvector extension, behind its socket
 * server on 127.0.0.1 at a free port, in a process of its own: the memory bench's PostgreSQL
 * with pgvector (the tests' embedded PostgreSQL has no pgvector). Prints `{"port":N}` once
 * listening, then serves until SIGTERM. Usage: pglite-server-child.ts
 */
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

const db = await PGlite.create({ extensions: { vector } });
const server = new PGLiteSocketServer({ db, port: 0, host: '127.0.0.1', maxConnections: 8 });
await server.start();
const address = server.getServerConn();
process.stdout.write(`${JSON.stringify({ port: Number(address.split(':').pop()) })}\n`);
process.once('SIGTERM', () => {
  void server
    .stop()
    .then(() => db.close())
    .finally(() => process.exit(0));
});
