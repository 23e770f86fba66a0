import type { AnyStateMachine } from 'xstate';
import { instanceKey } from '../workflow-host/instance-key.js';
import type { WorkflowInfo } from './workflow-info.js';
import type { InstanceScope, Workflows } from './workflows.js';

/** What `recover()` did with one instance: restored (its state now), or why it could not. */
export interface Recovered {
  id: string;
  info?: WorkflowInfo | undefined;
  error?: unknown;
}

/**
 * Restores a workflow's active instances of one user that no process holds (their process
 * stopped) and runs what waits in each: a step that was in flight follows its in-doubt policy,
 * commands in the inbox are applied, timers due fire. One another process holds is left to it.
 */
export async function recoverInstances(
  workflows: Workflows<AnyStateMachine>,
  options: InstanceScope & { limit?: number | undefined },
): Promise<Recovered[]> {
  const recovered: Recovered[] = [];
  let cursor: string | undefined;
  do {
    const page = await workflows.list({ ...options, status: 'active', cursor });
    for (const { id } of page.workflows) {
      try {
        const driven = await workflows.host.drive(instanceKey(id, options.userId), id);
        if (!driven) continue; // another process holds it
        await driven.instance.gone;
        recovered.push({ id, info: await workflows.get(id, options) });
      } catch (error) {
        recovered.push({ id, error });
      }
    }
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return recovered;
}
