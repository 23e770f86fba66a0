import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { benchScriptPath, REPO_ROOT } from './child.js';

/** A PGlite server with pgvector (`pglite-server-child.ts`), running until `stop`. */
export interface PgliteServer {
  url: string;
  /** The server process's resident set size now (Linux: /proc; elsewhere NaN). */
  rssBytes(): number;
  stop(): Promise<void>;
}

/** Starts `pglite-server-child.ts` in a process of its own and waits until it listens. */
export async function startPgliteServer(): Promise<PgliteServer> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', benchScriptPath('pglite-server-child.ts')],
    { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const port = await new Promise<number>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout });
    lines.once('line', (line) => resolve((JSON.parse(line) as { port: number }).port));
    child.once('exit', (code) =>
      reject(new Error(`the PGlite server exited with ${code}:\n${stderr}`)),
    );
  });
  return {
    url: `postgresql://postgres@127.0.0.1:${port}/postgres`,
    rssBytes() {
      try {
        const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
        const kb = /VmRSS:\s+(\d+) kB/.exec(status)?.[1];
        return kb ? Number(kb) * 1024 : Number.NaN;
      } catch {
        return Number.NaN;
      }
    },
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
