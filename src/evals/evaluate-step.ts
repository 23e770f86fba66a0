import type { Agent } from '../agent/agent.js';
import { InvalidDatasetError } from '../errors/eval-errors.js';
import type { ModelRequest } from '../models/model.js';
import { costUsd } from '../models/pricing.js';
import { definitionOf } from '../recovery/model-request-rebuild.js';
import type { EvalCandidate } from './eval-candidate.js';
import type { EvalOutcome, EvalRow } from './eval-row.js';
import { stepOutcome } from './recorded-outcome.js';

/** The request a seam sends: the row's, with the candidate's instructions and settings. */
export function candidateRequest(row: EvalRow, candidate: EvalCandidate): ModelRequest {
  const recorded = row.request as ModelRequest | undefined;
  if (!recorded) throw new InvalidDatasetError({ rowId: row.id }, 'a step row needs its request');
  const { instructions, settings } = candidate;
  if (instructions === undefined && settings === undefined) return recorded;
  const next =
    typeof instructions === 'function' ? instructions(recorded.instructions) : instructions;
  return {
    ...recorded,
    ...(next === undefined ? {} : { instructions: next }),
    ...(settings === undefined ? {} : { settings: { ...recorded.settings, ...settings } }),
  };
}

/**
 * A `step` row through the seam: its recorded request (with the candidate's overrides) sent
 * once to the candidate's model, or to the model of the agent that made the step. The outcome
 * is that answer; `diverged` when it asks for other tool calls (names and arguments) than the
 * recorded answer did.
 */
export async function evaluateStep(
  row: EvalRow,
  agent: Agent<unknown>,
  candidate: EvalCandidate,
  signal: AbortSignal,
): Promise<{ outcome: EvalOutcome; diverged: boolean }> {
  const options = definitionOf([agent], row.agent);
  if (!options) {
    throw new InvalidDatasetError(
      { rowId: row.id },
      `agent "${row.agent}" is not in the tree of agent "${agent.name}"`,
    );
  }
  const model = candidate.model ?? options.model;
  const response = await model.generate(candidateRequest(row, candidate), { signal });
  const cost = costUsd(response.model, response.usage, options.prices, model.price);
  const outcome = stepOutcome(row.agent, {
    text: response.text,
    toolCalls: response.toolCalls,
    usage: { ...response.usage, ...(cost === undefined ? {} : { costUsd: cost }) },
  });
  const calls = (o: EvalOutcome) => JSON.stringify(o.toolCalls);
  return { outcome, diverged: calls(outcome) !== calls(row.recorded) };
}
