import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { CliFailure, EXIT } from './cli-errors.js';
import type { CommandContext } from './command.js';

/** The text of the file `file` (relative to the working folder); unreadable: exit 2 saying so. */
export async function readGivenFile(
  ctx: CommandContext,
  file: string,
  what: string,
): Promise<string> {
  try {
    return await readFile(resolve(ctx.io.cwd, file), 'utf8');
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    throw new CliFailure(
      `${what}: cannot read ${file}${typeof code === 'string' ? ` (${code})` : ''}`,
      EXIT.usage,
    );
  }
}
