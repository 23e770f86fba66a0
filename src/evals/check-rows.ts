import type { Agent } from '../agent/agent.js';
import { InvalidDatasetError } from '../errors/eval-errors.js';
import { agentsInTree, definitionOf, toolNamesOf } from '../recovery/model-request-rebuild.js';
import type { EvalRow } from './eval-row.js';

/**
 * Checks that each row fits `agent`: its agent is in the agent's tree; a step row offers and
 * calls only tools its agent has; a run row's recorded calls name only tools of the tree.
 * Otherwise `InvalidDatasetError` naming the row and the tool (`runEval` checks first, and
 * stores nothing then).
 */
export function checkRows(dataset: { rows: readonly EvalRow[] }, agent: Agent<unknown>): void {
  const tree = agentsInTree([agent]);
  const allTools = new Set(tree.flatMap(toolNamesOf));
  for (const row of dataset.rows) {
    const options = definitionOf([agent], row.agent);
    if (!options) {
      throw new InvalidDatasetError(
        { rowId: row.id, path: 'agent' },
        `agent "${row.agent}" is not in the tree of agent "${agent.name}"`,
      );
    }
    if (row.kind === 'step') {
      const own = new Set(toolNamesOf(options));
      if (!row.request) {
        throw new InvalidDatasetError(
          { rowId: row.id, path: 'request' },
          'a step row needs its request',
        );
      }
      row.request.tools.forEach((t, i) => {
        if (!own.has(t.name)) {
          throw new InvalidDatasetError(
            { rowId: row.id, path: `request.tools.${i}` },
            `agent "${row.agent}" has no tool "${t.name}"`,
          );
        }
      });
      row.recorded.toolCalls.forEach((c, i) => {
        if (!own.has(c.name)) {
          throw new InvalidDatasetError(
            { rowId: row.id, path: `recorded.toolCalls.${i}` },
            `agent "${row.agent}" has no tool "${c.name}"`,
          );
        }
      });
    } else {
      row.recorded.toolCalls.forEach((c, i) => {
        if (!allTools.has(c.name)) {
          throw new InvalidDatasetError(
            { rowId: row.id, path: `recorded.toolCalls.${i}` },
            `no agent in the tree of "${agent.name}" has a tool "${c.name}"`,
          );
        }
      });
    }
  }
}
