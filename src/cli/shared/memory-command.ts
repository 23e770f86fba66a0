import type { Agent } from '../../agent/agent.js';
import type { Embedder } from '../../models/embedder.js';
import { openMemory, type MemoryHandle } from '../../memory/open-memory.js';
import type { Memory, MemoryScope } from '../../persistence/memory-store.js';
import { importAppModule } from './app-module.js';
import { CliFailure, CliUsageError } from './cli-errors.js';
import { localDate, oneLine, type Cell } from './cli-format.js';
import { POSTGRES_OPTIONS, withCommandStore } from './command-store.js';
import { stringFlag, type CommandContext, type OptionSpec } from './command.js';

/** `--resource` and the store options: what every `memory` command takes. */
export const MEMORY_OPTIONS: Record<string, OptionSpec> = {
  resource: {
    type: 'string',
    value: 'R',
    description:
      "one resource of the user's (a project, a ticket); default: all of the user's memory",
  },
  ...POSTGRES_OPTIONS,
};

/** The scope a `memory` command names: `--user` and `--resource` (checked not empty). */
export function memoryScope(ctx: CommandContext, command: string): MemoryScope {
  const resource = stringFlag(ctx, 'resource');
  if (resource === '') throw new CliUsageError('--resource must not be empty', command);
  return {
    ...(ctx.user === undefined ? {} : { userId: ctx.user }),
    ...(resource === undefined ? {} : { resource }),
  };
}

/**
 * Runs `use` with the memory of the command's store (the folder, or `--postgres`), then closes
 * it. What the store refuses as given wrong (a cursor of another store, a resource too long) is
 * a usage error of the command.
 */
export function withCommandMemory<T>(
  ctx: CommandContext,
  command: string,
  embedder: Embedder | undefined,
  use: (memory: MemoryHandle) => Promise<T>,
): Promise<T> {
  return withCommandStore(ctx, command, async ({ store }) => {
    try {
      return await use(openMemory(store, embedder === undefined ? {} : { embedder }));
    } catch (error) {
      // the store's checks of what it was given (a cursor, a resource): the flags were wrong
      if (error instanceof TypeError) throw new CliUsageError(error.message, command);
      throw error;
    }
  });
}

/** Whether `value` looks like an `Embedder` (from this copy of the package or another). */
function isEmbedder(value: unknown): value is Embedder {
  const v = value as Partial<Embedder> | null | undefined;
  return (
    typeof v?.name === 'string' && typeof v.dimensions === 'number' && typeof v.embed === 'function'
  );
}

/**
 * The embedder of the app's module `spec` (`--module`): its `embedder` export, else the
 * `memory.embedder` of the agent it exports as `agent` (or default). Search must embed its text
 * with the model the memories were embedded with.
 */
export async function loadEmbedder(spec: string, cwd: string): Promise<Embedder> {
  const mod = await importAppModule(spec, cwd, 'module');
  if (isEmbedder(mod['embedder'])) return mod['embedder'];
  const agent = (mod['agent'] ?? mod['default']) as Partial<Agent> | undefined;
  const embedder = (agent?.options as { memory?: { embedder?: unknown } } | undefined)?.memory
    ?.embedder;
  if (isEmbedder(embedder)) return embedder;
  throw new CliFailure(
    `--module: ${spec} exports no \`embedder\`, nor an agent (\`agent\` or default) with memory.embedder`,
  );
}

/** A memory's cells: id, resource, kind, source session, time, text on one line. */
export function memoryCells(m: Memory): Cell[] {
  return [
    m.id,
    m.resource ?? '-',
    m.kind === 'message' && m.role ? `${m.kind} (${m.role})` : m.kind,
    m.sessionId ?? '-',
    localDate(m.at),
    oneLine(m.text),
  ];
}

/** The header of {@link memoryCells}. */
export const MEMORY_HEADER = ['ID', 'RESOURCE', 'KIND', 'SESSION', 'AT', 'TEXT'];

/** "of user alice" / "of the anonymous bucket", with the resource when one is named. */
export function scopeText(scope: MemoryScope): string {
  const who = scope.userId === undefined ? 'the anonymous bucket' : `user ${scope.userId}`;
  return scope.resource === undefined ? who : `${who}, resource ${scope.resource}`;
}
