import { join } from 'node:path';
import type { BuiltScripts } from '../built-scripts.js';
import { runNodeScript } from '../child.js';
import { copyDir, tempDir } from '../fixtures.js';

/** The child script W3 runs, compiled first (`buildScripts([W3_CHILD])`). */
export const W3_CHILD = 'w3-child.ts';

/** One run of W3, in ms (all from the child's own clocks, against the spawn time). */
export interface W3Run {
  historyLength: number;
  processMs: number;
  /** Spawn to the child's first line: Node's boot. */
  startupMs: number;
  /** Importing the package: `xstateMs + zodMs + packageMs`. */
  importsMs: number;
  /** `import('xstate')`, first. */
  xstateMs: number;
  /** `import('zod')`, second. */
  zodMs: number;
  /** The package itself with xstate and zod loaded: its own modules, `ulid`, the rest. */
  packageMs: number;
  /** The app's own module (the bench agent and its tool). */
  appMs: number;
  openMs: number;
  messageMs: number;
  totalMs: number;
  /** (open + message) / total. */
  storeShare: number;
}

/**
 * W3, resume in a fresh process: a new Node process opens a copy of the T = 500 store (so
 * every run sees the same data) and sends one more message. The child runs compiled, with
 * plain `node`, as users run the package (see `built-scripts.ts`).
 */
export async function runW3(
  built: BuiltScripts,
  storePath: string,
  messageIndex: number,
): Promise<W3Run> {
  const dir = await tempDir('agentstate-w3-');
  try {
    const path = join(dir.path, 'db');
    await copyDir(storePath, path);
    const run = await runNodeScript<Omit<W3Run, 'storeShare'>>(
      built.path(W3_CHILD),
      (spawnedAt) => [path, String(spawnedAt), String(messageIndex)],
    );
    return { ...run, storeShare: (run.openMs + run.messageMs) / run.totalMs };
  } finally {
    await dir.cleanup();
  }
}
