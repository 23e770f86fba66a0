import { CliUsageError } from '../shared/cli-errors.js';
import { json, table } from '../shared/cli-format.js';
import { intFlag, stringFlag, type Command, type CommandContext } from '../shared/command.js';
import {
  MEMORY_HEADER,
  MEMORY_OPTIONS,
  loadEmbedder,
  memoryCells,
  memoryScope,
  scopeText,
  withCommandMemory,
} from '../shared/memory-command.js';

async function run(ctx: CommandContext): Promise<void> {
  const name = 'memory search';
  const scope = memoryScope(ctx, name);
  const text = ctx.args['text']!;
  if (text.trim() === '') throw new CliUsageError('the text to search must not be empty', name);
  const topK = intFlag(ctx, name, 'top', 1);
  if (topK !== undefined && topK > 1000) {
    throw new CliUsageError(`--top must be at most 1000, got ${topK}`, name);
  }
  const rawMin = stringFlag(ctx, 'min-score');
  const minScore = rawMin === undefined ? undefined : Number(rawMin);
  if (
    rawMin !== undefined &&
    (rawMin.trim() === '' || !Number.isFinite(minScore) || minScore! < -1 || minScore! > 1)
  ) {
    throw new CliUsageError(
      `--min-score must be a number from -1 to 1, got ${JSON.stringify(rawMin)}`,
      name,
    );
  }
  const spec = stringFlag(ctx, 'module');
  if (spec === undefined) {
    throw new CliUsageError(
      'search embeds the text with the embedder the memories were made with: give --module <file> exporting `embedder`, or an agent with memory.embedder',
      name,
    );
  }
  const embedder = await loadEmbedder(spec, ctx.io.cwd);
  const matches = await withCommandMemory(ctx, name, embedder, (memory) =>
    memory.search({
      ...scope,
      text,
      ...(topK === undefined ? {} : { topK }),
      ...(minScore === undefined ? {} : { minScore }),
    }),
  );
  if (ctx.json) {
    ctx.io.out(json({ model: embedder.name, matches }));
    return;
  }
  if (matches.length === 0) {
    ctx.io.out(`no memories of ${scopeText(scope)} match (model ${embedder.name})\n`);
    return;
  }
  ctx.io.out(
    table(
      ['SCORE', ...MEMORY_HEADER],
      matches.map((m) => [m.score.toFixed(3), ...memoryCells(m.memory)]),
      ctx.painter,
    ),
  );
}

export const memorySearch: Command = {
  name: 'memory search',
  summary:
    "a user's memories most similar to a text, best first with their scores (cosine similarity), embedded by the app's embedder",
  args: ['text'],
  options: {
    module: {
      type: 'string',
      value: 'file',
      description:
        "a module exporting the app's `embedder`, or its agent (`agent` or default) with memory.embedder: the model the memories were embedded with; it must not open --db itself",
    },
    ...MEMORY_OPTIONS,
    top: { type: 'string', value: 'N', description: 'at most N matches (default 10)' },
    'min-score': {
      type: 'string',
      value: 'S',
      description: 'only matches scoring at least S (-1 to 1)',
    },
  },
  examples: [
    'agentstate memory search "peanut allergy" --user alice --module ./dist/agent.js',
    'agentstate memory search "deadline" --user alice --resource project-7 --module ./dist/embedder.js --top 3',
  ],
  run,
};
