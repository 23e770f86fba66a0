import { CliUsageError } from '../shared/cli-errors.js';
import { json } from '../shared/cli-format.js';
import type { Command, CommandContext } from '../shared/command.js';
import {
  MEMORY_OPTIONS,
  memoryScope,
  scopeText,
  withCommandMemory,
} from '../shared/memory-command.js';

const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

async function run(ctx: CommandContext): Promise<void> {
  const name = 'memory forget';
  const scope = memoryScope(ctx, name);
  const sessions = ctx.flags['sessions'] === true;
  if (sessions && scope.resource !== undefined) {
    throw new CliUsageError('--sessions erases a whole user: leave --resource out', name);
  }
  if (ctx.flags['yes'] !== true) {
    const what = sessions ? 'all the memory and every session' : 'all the memory';
    throw new CliUsageError(
      `forget erases ${what} of ${scopeText(scope)} for good: add --yes to go on`,
      name,
    );
  }
  const erased = await withCommandMemory(ctx, name, undefined, (memory) =>
    memory.forget({ ...scope, ...(sessions ? { sessions: true } : {}) }),
  );
  if (ctx.json) {
    ctx.io.out(json({ ...scope, ...erased }));
    return;
  }
  const parts = [
    count(erased.memories, 'memory', 'memories'),
    count(erased.workingMemories, 'working memory', 'working memories'),
    ...(sessions ? [count(erased.sessions, 'session', 'sessions')] : []),
  ];
  ctx.io.out(`erased ${parts.join(', ')} of ${scopeText(scope)}\n`);
}

export const memoryForget: Command = {
  name: 'memory forget',
  summary:
    "erase a user's memory (or one resource's): memories, vectors and working memory, to the byte; with --sessions their sessions too",
  args: [],
  options: {
    ...MEMORY_OPTIONS,
    sessions: {
      type: 'boolean',
      description:
        'also purge every session and workflow instance of the user (history, journal), so nothing they said stays (not with --resource)',
    },
    yes: { type: 'boolean', description: 'erase: without it nothing is erased' },
  },
  examples: [
    'agentstate memory forget --user alice --resource project-7 --yes',
    'agentstate memory forget --user alice --sessions --yes',
  ],
  run,
};
