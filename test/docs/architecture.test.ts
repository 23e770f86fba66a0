import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { specifiers } from '../helpers/layering-check.js';

/**
 * docs/architecture.md walks one message from `agent.run` to the store's batch as a table of
 * stages, each with its file (issue 41). The code follows the page: every file exists, every
 * stage is reached as its row says (`imported by N`: stage N's file imports it; `implements N`:
 * it imports stage N's file, whose interface it implements), and the path crosses at most 12
 * folder boundaries (two consecutive stages in different folders of `src/` are one crossing).
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PAGE = 'docs/architecture.md';
const MAX_CROSSINGS = 12;

interface Stage {
  n: number;
  name: string;
  file: string;
  reached: string;
}

/** The page's stage rows, in order. */
function stagesOf(text: string): Stage[] {
  return [...text.matchAll(/^\|\s*(\d+)\s*\|([^|]*)\|\s*`([^`]+)`\s*\|([^|]*)\|/gm)].map((m) => ({
    n: Number(m[1]),
    name: m[2]!.trim(),
    file: m[3]!,
    reached: m[4]!.trim(),
  }));
}

/** The files `file` imports (type imports included), as paths from the repository root. */
function importsOf(root: string, file: string): Set<string> {
  const at = join(root, file);
  return new Set(
    specifiers(at)
      .filter((s) => s.startsWith('.'))
      .map((s) => relative(root, resolve(dirname(at), s)).replace(/\.js$/, '.ts')),
  );
}

/** What is wrong with the stage list against the code under `root`, one line per mistake. */
function pathProblems(root: string, stages: readonly Stage[]): string[] {
  const problems: string[] = [];
  stages.forEach((stage, i) => {
    if (stage.n !== i + 1)
      problems.push(`stage ${stage.name} is numbered ${stage.n}, not ${i + 1}`);
    if (!existsSync(join(root, stage.file))) {
      problems.push(`stage ${stage.n} (${stage.name}): ${stage.file} does not exist`);
      return;
    }
    if (i === 0) return;
    const how = /^(imported by|implements) (\d+)$/.exec(stage.reached);
    const from = how ? stages[Number(how[2]) - 1] : undefined;
    if (!how || !from || from.n >= stage.n) {
      problems.push(`stage ${stage.n} (${stage.name}): "${stage.reached}" names no earlier stage`);
      return;
    }
    if (!existsSync(join(root, from.file))) return;
    const linked =
      how[1] === 'imported by'
        ? importsOf(root, from.file).has(stage.file)
        : importsOf(root, stage.file).has(from.file);
    if (!linked) {
      problems.push(
        how[1] === 'imported by'
          ? `stage ${stage.n} (${stage.name}): ${from.file} does not import ${stage.file}`
          : `stage ${stage.n} (${stage.name}): ${stage.file} does not import ${from.file}`,
      );
    }
  });
  return problems;
}

/** Folder boundaries crossed along the list: consecutive stages in different folders. */
function crossings(stages: readonly Stage[]): number {
  return stages.slice(1).filter((s, i) => dirname(s.file) !== dirname(stages[i]!.file)).length;
}

const stages = stagesOf(readFileSync(join(ROOT, PAGE), 'utf8'));

describe('docs/architecture.md: one message from agent.run to the batch, followed in the code', () => {
  it('lists the stages from agent.run to the LevelDB batch', () => {
    expect(stages[0]?.file).toBe('src/agent/agent.ts');
    expect(stages.at(-1)?.file).toBe('src/persistence/kv/kv-session-store.ts');
    expect(stages.length).toBeGreaterThanOrEqual(10);
  });

  it('each stage file exists and is reached from an earlier stage as its row says', () => {
    expect(pathProblems(ROOT, stages)).toEqual([]);
  });

  it(`crosses at most ${MAX_CROSSINGS} folder boundaries, as many as the page says`, () => {
    const count = crossings(stages);
    expect(count).toBeLessThanOrEqual(MAX_CROSSINGS);
    const said = /The table crosses (\d+);/.exec(readFileSync(join(ROOT, PAGE), 'utf8'));
    expect(Number(said?.[1])).toBe(count);
  });

  it('fails for a stage that moved without the page, a broken link and a longer path', () => {
    const moved = stages.map((s) =>
      s.file === 'src/sessions/admission.ts'
        ? { ...s, file: 'src/sessions/message-admission.ts' }
        : s,
    );
    expect(pathProblems(ROOT, moved)).toContain(
      'stage 5 (admission): src/sessions/message-admission.ts does not exist',
    );
    const unlinked = stages.map((s) => (s.n === 6 ? { ...s, reached: 'imported by 3' } : s));
    expect(pathProblems(ROOT, unlinked)).toContain(
      'stage 6 (execution): src/actions/message.ts does not import src/sessions/execution.ts',
    );
    const detour = stages.flatMap((s) =>
      s.n > 1 ? [{ ...s, file: 'src/core/clock.ts' }, s] : [s],
    );
    expect(crossings(detour)).toBeGreaterThan(MAX_CROSSINGS);
  });
});
