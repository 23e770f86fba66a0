import type { MemoryKind } from '../../persistence/memory-store.js';
import { CliUsageError } from '../shared/cli-errors.js';
import { json, table } from '../shared/cli-format.js';
import { intFlag, stringFlag, type Command, type CommandContext } from '../shared/command.js';
import {
  MEMORY_HEADER,
  MEMORY_OPTIONS,
  memoryCells,
  memoryScope,
  scopeText,
  withCommandMemory,
} from '../shared/memory-command.js';

const KINDS: readonly MemoryKind[] = ['fact', 'message'];

async function run(ctx: CommandContext): Promise<void> {
  const name = 'memory list';
  const scope = memoryScope(ctx, name);
  const limit = intFlag(ctx, name, 'limit', 1);
  if (limit !== undefined && limit > 1000) {
    throw new CliUsageError(`--limit must be at most 1000, got ${limit}`, name);
  }
  const kind = stringFlag(ctx, 'kind');
  if (kind !== undefined && !(KINDS as readonly string[]).includes(kind)) {
    throw new CliUsageError(`--kind must be fact or message, got ${JSON.stringify(kind)}`, name);
  }
  const cursor = stringFlag(ctx, 'cursor');
  const page = await withCommandMemory(ctx, name, undefined, (memory) =>
    memory.list({
      ...scope,
      ...(kind === undefined ? {} : { kind: kind as MemoryKind }),
      ...(limit === undefined ? {} : { limit }),
      ...(cursor === undefined ? {} : { cursor }),
    }),
  );
  if (ctx.json) {
    ctx.io.out(json(page));
    return;
  }
  if (page.memories.length === 0) {
    ctx.io.out(`no memories of ${scopeText(scope)}\n`);
    return;
  }
  ctx.io.out(table(MEMORY_HEADER, page.memories.map(memoryCells), ctx.painter));
  if (page.nextCursor !== undefined) ctx.io.out(`more: --cursor ${page.nextCursor}\n`);
}

export const memoryList: Command = {
  name: 'memory list',
  summary:
    "a user's memories across sessions, newest first: facts agents saved and messages recall keeps, with their source session",
  args: [],
  options: {
    ...MEMORY_OPTIONS,
    kind: { type: 'string', value: 'K', description: 'only this kind (fact, message)' },
    limit: {
      type: 'string',
      value: 'N',
      description: 'at most N memories (default 50, at most 1000)',
    },
    cursor: { type: 'string', value: 'C', description: 'the page after the one that printed it' },
  },
  examples: [
    'agentstate memory list --user alice',
    'agentstate memory list --user alice --resource project-7 --kind fact --json',
  ],
  run,
};
