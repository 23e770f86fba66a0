import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { isAbsolute, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CliFailure, CliUsageError } from './cli-errors.js';

/** What Node says when it cannot run a TypeScript file by itself (by version: no type stripping, or syntax it cannot strip). */
const TYPESCRIPT_REFUSALS: readonly unknown[] = [
  'ERR_UNKNOWN_FILE_EXTENSION',
  'ERR_UNSUPPORTED_TYPESCRIPT_SYNTAX',
  'ERR_UNSUPPORTED_NODE_MODULES_TYPE_STRIPPING',
];

/**
 * The exports of the app's module `spec` (a path relative to `cwd`, or an installed package's
 * name) given with `--<flag>` (or as the argument `<flag>` when `flag` is written `<name>`). A
 * missing module is one line saying so; a TypeScript file Node cannot load is a usage error
 * saying how to give it.
 */
export async function importAppModule(
  spec: string,
  cwd: string,
  flag: string,
): Promise<Record<string, unknown>> {
  const given = flag.startsWith('<') ? flag : `--${flag}`;
  const asPath = isAbsolute(spec) ? spec : resolve(cwd, spec);
  let url: string;
  if (existsSync(asPath)) url = pathToFileURL(asPath).href;
  else {
    try {
      url = pathToFileURL(createRequire(join(cwd, 'index.js')).resolve(spec)).href;
    } catch {
      throw new CliFailure(`${given}: no module ${spec} (a file path or an installed package)`);
    }
  }
  try {
    return (await import(url)) as Record<string, unknown>;
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    if (/\.[cm]?tsx?$/.test(new URL(url).pathname) && TYPESCRIPT_REFUSALS.includes(code)) {
      throw new CliUsageError(
        `${given}: ${spec} is TypeScript, which node does not load by itself: build it to .js and give that file, or run the command line under a TypeScript loader (npx tsx node_modules/agentstate/dist/cli.js ...)`,
      );
    }
    throw error;
  }
}
