import { join } from 'node:path';
import { expect } from 'vitest';
import { z } from 'zod';
import { tool } from '../../src/index.js';
import { runWorker } from './crash-driver.js';

/** The crash worker's tool, for a process that resumes its run. */
export const append = tool({
  name: 'append',
  description: 'Appends a line to the log file',
  parameters: z.object({ n: z.number().int() }),
  execute: ({ n }) => n,
});

/**
 * The crash worker's session (`CRASH_SESSION`) in the LevelDB folder `<dir>/db`, its process
 * SIGKILLed in the run's first tool call (steps in flight). Returns the folder.
 */
export async function crashedFolder(dir: string): Promise<string> {
  const dbDir = join(dir, 'db');
  const round = await runWorker({
    dbDir,
    logFile: join(dir, 'log'),
    mode: 'start',
    steps: 3,
    crashAt: 'tool-after:1',
  });
  expect(round.killed).toBe(true);
  return dbDir;
}
