import type { Budget, SessionConfig } from '../machines/session-types.js';
import { checkBudget } from '../validation/option-checks.js';
import type { SessionAction } from './session-action.js';

function configure(
  name: string,
  patch: (config: SessionConfig) => Partial<SessionConfig>,
  auditSummary?: string,
): SessionAction {
  return {
    name,
    auditSummary,
    event: { type: 'CONFIGURE', patch: {} },
    async apply({ host }) {
      host.send({ type: 'CONFIGURE', patch: patch(host.context().config) }, name);
    },
  };
}

/** Sets the model name sent with this session's requests. */
export const changeModel = (model: string | undefined): SessionAction =>
  configure('changeModel', () => ({ model }));

/** Replaces the session's budget (e.g. before resuming a run interrupted by it). */
export const changeBudget = (budget: Budget): SessionAction => {
  checkBudget('changeBudget()', budget);
  return configure('changeBudget', () => ({ budget }), `budget set to ${JSON.stringify(budget)}`);
};

/** Replaces the agent's instructions for this session. */
export const changeSystemPrompt = (systemPrompt: string | undefined): SessionAction =>
  configure('changeSystemPrompt', () => ({ systemPrompt }));

/** Merges keys into the session's metadata (`undefined` removes a key). */
export const writeMetadata = (patch: Record<string, unknown>): SessionAction =>
  configure('writeMetadata', (config) => {
    const metadata = { ...config.metadata, ...patch };
    for (const [k, v] of Object.entries(patch)) if (v === undefined) delete metadata[k];
    return { metadata };
  });

/** Records what the session is working on (any JSON value). */
export const updateTask = (task: unknown): SessionAction =>
  configure('updateTask', () => ({ task }));
