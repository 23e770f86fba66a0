import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { ChildReport, ChildRequest } from './approval-child.js';
import { bundledScript } from './bundled-script.js';

const run = promisify(execFile);
const CHILD = fileURLToPath(new URL('./approval-child.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Runs `approval-child.ts` in a new Node process against the LevelDB folder `dbPath` (the
 * caller must have closed its own handle: LevelDB allows one process per folder).
 */
export function runApprovalChild(dbPath: string, request: ChildRequest): Promise<ChildReport> {
  return runStoreChild<ChildReport>(CHILD, dbPath, request);
}

/**
 * Runs a child script (`<script> <dbPath> '<request JSON>'`) in a new Node process and parses
 * the last line it prints as its report; a failed child throws with its stderr.
 */
export async function runStoreChild<R>(
  script: string,
  dbPath: string,
  request: unknown,
): Promise<R> {
  try {
    const { stdout } = await run(
      process.execPath,
      [await bundledScript(script), dbPath, JSON.stringify(request)],
      {
        cwd: ROOT,
        timeout: 60_000,
      },
    );
    const line = stdout.trim().split('\n').pop() ?? '';
    return JSON.parse(line) as R;
  } catch (error) {
    const e = error as { stderr?: string; message: string };
    throw new Error(`child ${script} failed: ${e.stderr?.trim() || e.message}`, { cause: error });
  }
}
