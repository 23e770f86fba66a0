import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { ChildReport, ChildRequest } from './approval-child.js';

const run = promisify(execFile);
const CHILD = fileURLToPath(new URL('./approval-child.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Runs `approval-child.ts` in a new Node process against the LevelDB folder `dbPath` (the
 * caller must have closed its own handle: LevelDB allows one process per folder).
 */
export async function runApprovalChild(
  dbPath: string,
  request: ChildRequest,
): Promise<ChildReport> {
  try {
    const { stdout } = await run(
      process.execPath,
      ['--import', 'tsx', CHILD, dbPath, JSON.stringify(request)],
      {
        cwd: ROOT,
        timeout: 60_000,
      },
    );
    const line = stdout.trim().split('\n').pop() ?? '';
    return JSON.parse(line) as ChildReport;
  } catch (error) {
    const e = error as { stderr?: string; message: string };
    throw new Error(`approval child failed: ${e.stderr?.trim() || e.message}`, { cause: error });
  }
}
