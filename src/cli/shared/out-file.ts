import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { CliUsageError } from './cli-errors.js';
import type { CommandContext } from './command.js';

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * The file `--out` names (resolved from the working folder), checked before anything is read
 * or written: a usage error for an empty name or a folder.
 */
export function outFile(ctx: CommandContext, out: string, command: string): string {
  const path = resolve(ctx.io.cwd, out);
  if (out === '' || isFolder(path)) {
    throw new CliUsageError(
      `--out must name a file, got ${out === '' ? 'an empty name' : `the folder ${out}`}`,
      command,
    );
  }
  return path;
}
