import type { Agent } from '../../agent/agent.js';
import { importAppModule } from './app-module.js';
import { CliFailure, CliUsageError, EXIT } from './cli-errors.js';
import { stringFlag, type CommandContext } from './command.js';

/** Whether `value` looks like an agentstate `Agent` (from this copy of the package or another). */
export function isAgent(value: unknown): value is Agent {
  const v = value as Partial<Agent> | null | undefined;
  return typeof v?.runtimeFor === 'function' && typeof v.run === 'function';
}

/**
 * The agent the module `spec` exports (`check`, `eval`): `--export <name>`, else its default
 * export, else its `agent` export, else its one export that is an agent. Anything else is a
 * usage error naming the module's exports (and which are agents); `flag` is how the module was
 * given (`<module>`, `--agent`) and `command` the one whose help to point to.
 */
export async function agentExport(
  ctx: CommandContext,
  spec: string,
  flag: string,
  command: string,
): Promise<Agent> {
  let mod: Record<string, unknown>;
  try {
    mod = await importAppModule(spec, ctx.io.cwd, flag);
  } catch (error) {
    if (error instanceof CliUsageError) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    throw new CliFailure(
      reason.startsWith(flag) ? reason : `${flag}: ${spec} failed to load: ${reason}`,
      EXIT.usage,
    );
  }
  const name = stringFlag(ctx, 'export');
  const names = Object.keys(mod).filter((n) => n !== '__esModule');
  const agents = names.filter((n) => isAgent(mod[n]));
  const exportsText = `${names.length ? names.join(', ') : 'nothing'}${agents.length ? `; agents: ${agents.join(', ')}` : ''}`;
  if (name !== undefined) {
    if (isAgent(mod[name])) return mod[name];
    throw new CliUsageError(
      `${spec} exports no Agent named "${name}" (it exports: ${exportsText})`,
      command,
    );
  }
  const found = [mod['default'], mod['agent']].find(isAgent);
  if (found) return found;
  // One agent among its exports (as examples/agents/bills.ts): that one.
  if (agents.length === 1) return mod[agents[0]!] as Agent;
  throw new CliUsageError(
    `${spec} exports no Agent as its default export or as \`agent\`, and ${agents.length > 1 ? 'more than one' : 'none'} among the others; give --export <name> (it exports: ${exportsText})`,
    command,
  );
}
