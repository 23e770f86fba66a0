import { fields, json, table } from '../shared/cli-format.js';
import type { Command, CommandContext } from '../shared/command.js';
import { localDate } from '../shared/cli-format.js';
import {
  MEMORY_OPTIONS,
  memoryScope,
  scopeText,
  withCommandMemory,
} from '../shared/memory-command.js';
import type { MemoryResource, WorkingMemoryRecord } from '../../persistence/memory-store.js';

/** One scope of the user's, with its working memory. */
interface ShownScope extends MemoryResource {
  working?: WorkingMemoryRecord | undefined;
}

const contentText = (content: unknown) =>
  typeof content === 'string' ? content : JSON.stringify(content, null, 2);

async function run(ctx: CommandContext): Promise<void> {
  const name = 'memory show';
  const scope = memoryScope(ctx, name);
  const scopes = await withCommandMemory(ctx, name, undefined, async (memory) => {
    const all = await memory.resources(scope);
    const shown =
      scope.resource === undefined ? all : all.filter((r) => r.resource === scope.resource);
    const out: ShownScope[] = [];
    for (const r of shown) {
      const working = r.workingMemory
        ? await memory.workingMemory({ userId: scope.userId, resource: r.resource })
        : undefined;
      out.push({ ...r, ...(working ? { working } : {}) });
    }
    return out;
  });
  if (ctx.json) {
    ctx.io.out(json({ ...scope, scopes }));
    return;
  }
  if (scopes.length === 0) {
    ctx.io.out(`no memory of ${scopeText(scope)}\n`);
    return;
  }
  ctx.io.out(
    table(
      ['RESOURCE', 'MEMORIES', 'WORKING MEMORY'],
      scopes.map((s) => [
        s.resource ?? '(own scope)',
        String(s.memories),
        s.working ? `version ${s.working.version}, ${localDate(s.working.updatedAt)}` : '-',
      ]),
      ctx.painter,
      new Set([1]),
    ),
  );
  for (const s of scopes) {
    if (!s.working) continue;
    ctx.io.out('\n');
    ctx.io.out(
      fields(
        [
          ['working memory', s.resource ?? '(own scope)'],
          ['version', String(s.working.version)],
          ['updated', localDate(s.working.updatedAt)],
        ],
        ctx.painter,
      ),
    );
    ctx.io.out(`${contentText(s.working.content)}\n`);
  }
}

export const memoryShow: Command = {
  name: 'memory show',
  summary:
    "a user's memory at a glance: their scopes (own, and each resource) with how many memories each holds, and each working memory",
  args: [],
  options: MEMORY_OPTIONS,
  examples: ['agentstate memory show --user alice', 'agentstate memory show --user alice --json'],
  run,
};
