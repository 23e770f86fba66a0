import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { bundledScript } from './bundled-script.js';
import { repoRoot } from './child-process.js';

export type ChildEvent = Record<string, unknown> & { event: string };

/**
 * A child process (a TypeScript file, bundled: see bundled-script.ts) driven by JSON lines:
 * commands on its stdin, events on its stdout. `next` takes the first matching event, seen or
 * coming; when the child exits, every waiter gets `{ event: 'exited', stderr }`.
 */
export class JsonLineChild {
  readonly events: ChildEvent[] = [];
  private waiters: { match: (e: ChildEvent) => boolean; resolve: (e: ChildEvent) => void }[] = [];
  private stderr = '';
  private readonly listeners: ((event: ChildEvent) => void)[] = [];

  /** Starts `script` (relative to the repository root, or absolute) with `args` and `env`. */
  static async start(
    script: string,
    args: string[],
    env: Record<string, string> = {},
  ): Promise<JsonLineChild> {
    const child = spawn(process.execPath, [await bundledScript(script), ...args], {
      cwd: repoRoot,
      env: { ...process.env, ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    return new JsonLineChild(child);
  }

  private constructor(private readonly child: ChildProcess) {
    this.child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (this.stderr += chunk));
    createInterface({ input: this.child.stdout! }).on('line', (line) => {
      const event = JSON.parse(line) as ChildEvent;
      for (const listener of this.listeners) listener(event);
      if (this.listeners.length > 0) return;
      this.events.push(event);
      for (const waiter of this.waiters.filter((w) => w.match(event))) waiter.resolve(event);
      this.waiters = this.waiters.filter((w) => !w.match(event));
    });
    this.child.once('exit', () => {
      for (const listener of this.listeners) listener({ event: 'exited', stderr: this.stderr });
      for (const waiter of this.waiters) {
        waiter.resolve({ event: 'exited', stderr: this.stderr });
      }
      this.waiters = [];
    });
  }

  /** Hands every later event to `listener` instead of keeping it for `next`. */
  onEvent(listener: (event: ChildEvent) => void): void {
    this.listeners.push(listener);
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  send(cmd: string, extra: Record<string, unknown> = {}): void {
    this.child.stdin?.write(`${JSON.stringify({ cmd, ...extra })}\n`);
  }

  /** The first event (seen or coming) named one of `names`. */
  next(...names: string[]): Promise<ChildEvent> {
    const match = (e: ChildEvent) => names.includes(e.event) || e.event === 'exited';
    const seen = this.events.find(match);
    if (seen) {
      this.events.splice(this.events.indexOf(seen), 1);
      return Promise.resolve(seen);
    }
    if (this.exited) return Promise.resolve({ event: 'exited', stderr: this.stderr });
    return new Promise((resolve) => {
      this.waiters.push({
        match,
        resolve: (e) => {
          const i = this.events.indexOf(e);
          if (i >= 0) this.events.splice(i, 1);
          resolve(e);
        },
      });
    });
  }

  get exited(): boolean {
    return this.child.exitCode !== null || this.child.signalCode !== null;
  }

  /** What the child wrote on stderr so far. */
  get stderrText(): string {
    return this.stderr;
  }

  /** Resolves with the child's exit code once it is gone (null: ended by a signal). */
  exitCode(): Promise<number | null> {
    if (this.exited) return Promise.resolve(this.child.exitCode);
    return new Promise((resolve) => this.child.once('exit', (code) => resolve(code)));
  }

  /** SIGKILLs the child (if still running) and waits for it to be gone. */
  async stop(): Promise<void> {
    if (this.exited) return;
    const gone = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.kill('SIGKILL');
    await gone;
  }
}
