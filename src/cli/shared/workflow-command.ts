import type { SessionStore } from '../../persistence/session-store.js';
import type { Workflows } from '../../workflows/workflows.js';
import { CliUsageError } from './cli-errors.js';
import { POSTGRES_OPTIONS, withCommandStore } from './command-store.js';
import { stringFlag, type CommandContext, type OptionSpec } from './command.js';
import { loadWorkflowHosts } from './workflow-module.js';
import { loadWorkflow, type WorkflowTarget } from './workflow-target.js';

/** `--module`: the app's module whose workflow hosts apply a command at once. */
export const WORKFLOW_MODULE_OPTION: OptionSpec = {
  type: 'string',
  value: 'module',
  description:
    "a module exporting the app's workflows() hosts: the command is applied at once, by the host, on the store the host was given (no --db, no --postgres)",
};

/** The options of the commands that act on an instance: `--module`, `--postgres`, `--schema`. */
export const WORKFLOW_COMMAND_OPTIONS: Record<string, OptionSpec> = {
  module: WORKFLOW_MODULE_OPTION,
  ...POSTGRES_OPTIONS,
};

/** What a command acting on instance `id` works with. */
export interface WorkflowCommandScope {
  store: SessionStore;
  target: WorkflowTarget;
  /** With `--module`: the app's host of the instance's workflow, which applies the command. */
  host?: Workflows | undefined;
}

/**
 * Runs `use` on instance `id` of the command's user: with `--module`, on the store of the
 * app's hosts, with the host of the instance's workflow; else on the folder or PostgreSQL
 * (`--postgres`), where what the command does is queued for the process hosting it.
 */
export async function withWorkflow<T>(
  ctx: CommandContext,
  command: string,
  id: string,
  use: (scope: WorkflowCommandScope) => Promise<T>,
): Promise<T> {
  const spec = stringFlag(ctx, 'module');
  if (spec === undefined) {
    return withCommandStore(ctx, command, async ({ store }) =>
      use({ store, target: await loadWorkflow(store, id, ctx.user) }),
    );
  }
  for (const flag of ['db', 'postgres', 'schema']) {
    if (stringFlag(ctx, flag) !== undefined) {
      throw new CliUsageError(
        `--module brings its hosts' store: leave out --${flag} (the hosts were given theirs)`,
        command,
      );
    }
  }
  const app = await loadWorkflowHosts(spec, ctx.io.cwd);
  try {
    const target = await loadWorkflow(app.store, id, ctx.user);
    return await use({ store: app.store, target, host: app.host(target.info.workflow) });
  } finally {
    await app.close();
  }
}
