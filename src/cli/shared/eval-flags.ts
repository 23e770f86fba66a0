import { CliUsageError } from './cli-errors.js';
import { stringFlag, type CommandContext } from './command.js';

/** Which rows `eval dataset add` takes of a run: the whole run, each model step, or some. */
export type StepsChoice = 'run' | 'model-steps' | number[];

/** `--steps run|model-steps|<n,...>` (default `run`); anything else is a usage error. */
export function stepsFlag(ctx: CommandContext, command: string): StepsChoice {
  const raw = stringFlag(ctx, 'steps');
  if (raw === undefined || raw === 'run') return 'run';
  if (raw === 'model-steps') return 'model-steps';
  const parts = raw.split(',');
  if (parts.every((p) => /^\d+$/.test(p) && Number.isSafeInteger(Number(p)))) {
    return [...new Set(parts.map(Number))];
  }
  throw new CliUsageError(
    `--steps must be run, model-steps or step numbers (3,5), got ${JSON.stringify(raw)}`,
    command,
  );
}

/**
 * A flag listing names out of `allowed` (`--scorers exact,tools`): each one once, at least
 * one; absent: `fallback`.
 */
export function namesFlag<T extends string>(
  ctx: CommandContext,
  command: string,
  name: string,
  allowed: readonly T[],
  fallback: readonly T[],
): T[] {
  const raw = stringFlag(ctx, name);
  if (raw === undefined) return [...fallback];
  const given = raw.split(',').map((s) => s.trim());
  const wrong = given.filter((g) => !(allowed as readonly string[]).includes(g));
  if (raw.trim() === '' || wrong.length > 0) {
    throw new CliUsageError(
      `--${name} takes ${allowed.join(', ')} (comma-separated), got ${JSON.stringify(wrong[0] ?? raw)}`,
      command,
    );
  }
  return [...new Set(given as T[])];
}

/** A flag that must be a finite number of at least `min` (a decimal: `0.05`), or absent. */
export function numberFlag(
  ctx: CommandContext,
  command: string,
  name: string,
  min: number,
): number | undefined {
  const raw = stringFlag(ctx, name);
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (!/^-?\d+(\.\d+)?$/.test(raw) || !Number.isFinite(value) || value < min) {
    throw new CliUsageError(
      `--${name} must be a number of at least ${min}, got ${JSON.stringify(raw)}`,
      command,
    );
  }
  return value;
}
