import { join } from 'node:path';
import { runChild } from '../child.js';
import { copyDir, tempDir } from '../fixtures.js';

/** One run of W3, in ms (all from the child's own clocks, against the spawn time). */
export interface W3Run {
  historyLength: number;
  processMs: number;
  startupMs: number;
  importsMs: number;
  openMs: number;
  messageMs: number;
  totalMs: number;
  /** (open + message) / total. */
  storeShare: number;
}

/**
 * W3, resume in a fresh process: a new Node process opens a copy of the T = 500 store (so
 * every run sees the same data) and sends one more message.
 */
export async function runW3(storePath: string, messageIndex: number): Promise<W3Run> {
  const dir = await tempDir('agentstate-w3-');
  try {
    const path = join(dir.path, 'db');
    await copyDir(storePath, path);
    const run = await runChild<Omit<W3Run, 'storeShare'>>('w3-child.ts', (spawnedAt) => [
      path,
      String(spawnedAt),
      String(messageIndex),
    ]);
    return { ...run, storeShare: (run.openMs + run.messageMs) / run.totalMs };
  } finally {
    await dir.cleanup();
  }
}
