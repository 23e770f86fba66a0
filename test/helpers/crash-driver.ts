import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { bundledScript } from './bundled-script.js';
import type { CrashWorkerResult } from './crash-worker.js';

const WORKER = fileURLToPath(new URL('./crash-worker.ts', import.meta.url));
const REPO = fileURLToPath(new URL('../..', import.meta.url));

export interface WorkerArgs {
  dbDir: string;
  logFile: string;
  mode: 'start' | 'resume' | 'cancel';
  steps: number;
  /** The worker's scenario (crash-worker.ts). @default 'session' */
  scenario?: 'session' | 'sub-agents' | undefined;
  /** `<phase>:<target>`; omitted: the worker runs to the end. */
  crashAt?: string | undefined;
  /** The agents' durability (`CRASH_DURABILITY`). @default the agent's default */
  durability?: 'step' | 'tools' | 'run' | undefined;
  /** What the tool does with a call in doubt (`CRASH_IN_DOUBT`). @default idempotent: it runs again */
  inDoubt?: 'retry' | 'fail' | 'reconcile' | 'ask-retry' | 'ask-result' | 'ask-fail' | undefined;
  /** Fails the round if the worker neither finishes nor asks to be killed by then. */
  timeoutMs?: number | undefined;
}

/** How one worker process ended. */
export interface WorkerRound {
  /** True when the test killed it with SIGKILL at its `kill-me` line. */
  killed: boolean;
  result: CrashWorkerResult | undefined;
  /** The last progress marker printed before `kill-me` (e.g. `at tool-after 7`). */
  lastMarker: string | undefined;
  markers: number;
  ms: number;
  /** The worker's process id (the pid its log lines carry). */
  pid: number | undefined;
  /** What a resume found stored (`durable <tools> <state>`), before it went on. */
  durable: { tools: number; state: string } | undefined;
}

const live = new Set<ChildProcess>();

/** Kills any worker still running (for afterEach, when a test failed half-way). */
export function killLiveWorkers(): void {
  for (const child of live) child.kill('SIGKILL');
  live.clear();
}

/**
 * Starts `node crash-worker.js ...` (crash-worker.ts bundled, see bundled-script.ts), reads its
 * stdout line by line and sends SIGKILL as soon as it prints `kill-me`. Resolves when the
 * process has exited.
 */
export async function runWorker(args: WorkerArgs): Promise<WorkerRound> {
  const worker = await bundledScript(WORKER);
  const started = Date.now();
  const child = spawn(
    process.execPath,
    [worker, args.dbDir, args.logFile, args.mode, String(args.steps)],
    {
      cwd: REPO,
      env: {
        ...process.env,
        CRASH_AT: args.crashAt ?? '',
        CRASH_SCENARIO: args.scenario ?? '',
        CRASH_DURABILITY: args.durability ?? '',
        CRASH_IN_DOUBT: args.inDoubt ?? '',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  live.add(child);
  let killRequested = false;
  let result: CrashWorkerResult | undefined;
  let lastMarker: string | undefined;
  let markers = 0;
  let durable: WorkerRound['durable'];
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  createInterface({ input: child.stdout }).on('line', (line) => {
    if (line === 'kill-me' && !killRequested) {
      killRequested = true;
      child.kill('SIGKILL');
    } else if (line.startsWith('at ')) {
      markers += 1;
      if (!killRequested) lastMarker = line;
    } else if (line.startsWith('durable ')) {
      const [, tools, state] = line.split(' ');
      durable = { tools: Number(tools), state: state ?? '' };
    } else if (line.startsWith('result ')) {
      result = JSON.parse(line.slice('result '.length)) as CrashWorkerResult;
    }
  });
  const timer = setTimeout(() => {
    stderr += `\n(timed out after ${args.timeoutMs ?? 60_000} ms)`;
    child.kill('SIGKILL');
  }, args.timeoutMs ?? 60_000);
  return new Promise<WorkerRound>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      live.delete(child);
      const round = {
        killed: killRequested && signal === 'SIGKILL',
        result,
        lastMarker,
        markers,
        ms: Date.now() - started,
        pid: child.pid,
        durable,
      };
      if (round.killed || (code === 0 && result)) resolve(round);
      else
        reject(
          new Error(
            `worker ${args.mode} CRASH_AT=${args.crashAt ?? ''} exited ${code ?? signal}:\n${stderr}`,
          ),
        );
    });
  });
}
