/**
 * PGlite with pgvector behind its socket server (`scripts/pglite-socket-server.ts`), in a process
 * of its own: the memory bench's PostgreSQL with pgvector (the tests' embedded PostgreSQL has no
 * pgvector), whose RSS the bench reads apart. Prints `{"port":N}` once listening, then serves
 * until SIGTERM. Usage: pglite-server-child.ts
 */
import { startPgliteSocketServer } from '../scripts/pglite-socket-server.js';

const server = await startPgliteSocketServer(8);
process.stdout.write(`${JSON.stringify({ port: Number(new URL(server.url).port) })}\n`);
process.once('SIGTERM', () => {
  void server.stop().finally(() => process.exit(0));
});
