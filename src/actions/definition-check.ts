import { DefinitionChangedError } from '../errors/session-errors.js';
import type { AgentOptions } from '../definition/agent-options.js';
import {
  definitionChanges,
  readDefinition,
  type DefinitionFingerprint,
} from '../definition/definition-fingerprint.js';
import { agentPathOf } from '../machines/agent-path.js';
import type { SessionKey, SessionRecord } from '../persistence/session-store.js';
import { allRuns, type RunNode } from '../runs/run-tree.js';
import { storedRun } from '../runs/stored-run.js';

/** How the agent of a run (found by its agent path) is defined now. */
export type CurrentDefinition = (path: readonly string[]) => Promise<{
  definition: DefinitionFingerprint;
  compatibleWith: AgentOptions<unknown>['compatibleWith'];
}>;

/**
 * Checks that each run of the session's stored run that is not over (paused or in flight: the
 * run and its sub-agent runs) is continued by its agent as defined when the run started, or
 * that the agent declares the change compatible (`AgentOptions.compatibleWith`, asked with
 * what changed). Otherwise `DefinitionChangedError` listing what changed, and nothing is
 * changed. A run without a fingerprint (stored before agentstate recorded one) is not checked.
 * Runs after `checkRunAgent`: the run's agent is the right one, by name.
 */
export async function checkRunDefinitions(
  key: SessionKey,
  record: SessionRecord,
  current: CurrentDefinition,
): Promise<void> {
  const root = storedRun<RunNode>(record.snapshot);
  if (root?.status !== 'active') return;
  for (const run of allRuns(root)) {
    if (!run.context?.definition) continue;
    const stored = readDefinition(run.context.definition);
    const agentPath = agentPathOf(run.context);
    // A sub-agent that fails to bind is not checked here: its run's next step fails with that.
    const now = await current(agentPath).catch(() => undefined);
    if (!now) continue;
    const changes = definitionChanges(stored, now.definition);
    if (changes.length === 0) continue;
    const { runId } = run.context;
    const change = {
      sessionId: key.sessionId,
      runId,
      agentPath,
      changes,
      stored,
      current: now.definition,
    };
    if (now.compatibleWith?.(change) === true) continue;
    throw new DefinitionChangedError(key.sessionId, runId, agentPath, changes);
  }
}
