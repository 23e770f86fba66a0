import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A throw-away PostgreSQL cluster, for the tests, the bench and `npm run pg:dev`: initdb in a
 * temp folder, started on 127.0.0.1 at a free port (as the `postgres` user when run as root:
 * PostgreSQL refuses root),
 * trust authentication, fsync off. Always stopped: `stop()` in afterAll, and an exit handler
 * for a test process that dies first. PostgreSQL missing is a failure, not a skip (CI must run
 * this leg: `.ci/run` installs it).
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

/** The folder holding initdb and pg_ctl: on PATH, else Debian's /usr/lib/postgresql/<v>/bin. */
export function postgresBin(): string {
  const onPath = spawnSync('sh', ['-c', 'command -v pg_ctl'], { encoding: 'utf8' });
  if (onPath.status === 0 && onPath.stdout.trim()) {
    return onPath.stdout.trim().replace(/\/pg_ctl$/, '');
  }
  const base = '/usr/lib/postgresql';
  const versions = existsSync(base)
    ? readdirSync(base)
        .filter((v) => existsSync(join(base, v, 'bin', 'pg_ctl')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (versions[0] === undefined) {
    throw new Error(
      'PostgreSQL is not installed (no pg_ctl on PATH or under /usr/lib/postgresql/*/bin): ' +
        'install Debian\'s "postgresql" package (apt-get install -y postgresql); ' +
        'the PostgreSQL tests are never skipped',
    );
  }
  return join(base, versions[0], 'bin');
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
  const bin = postgresBin();
  const asRoot = process.getuid?.() === 0;
  const folder = mkdtempSync(join(tmpdir(), 'agentstate-pg-'));
  const data = join(folder, 'data');
  const run = (tool: string, args: string[]): void => {
    const command = asRoot ? 'runuser' : join(bin, tool);
    const argv = asRoot ? ['-u', 'postgres', '--', join(bin, tool), ...args] : args;
    execFileSync(command, argv, { stdio: 'pipe', cwd: folder, timeout: 60_000 });
  };
  if (asRoot) {
    const { uid, gid } = postgresUser();
    chownSync(folder, uid, gid);
  }
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
    const options = `-p ${port} -k ${folder} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=60`;
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

function postgresUser(): { uid: number; gid: number } {
  const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
  return { uid, gid };
}
