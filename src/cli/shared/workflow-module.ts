import type { SessionStore } from '../../persistence/session-store.js';
import type { Workflows } from '../../workflows/workflows.js';
import { importAppModule } from './app-module.js';
import { CliFailure, CliUsageError } from './cli-errors.js';

/** Whether `value` looks like a `workflows()` host (from this copy of the package or another). */
function isWorkflows(value: unknown): value is Workflows {
  const v = value as Partial<Workflows> | null | undefined;
  return (
    typeof v?.name === 'string' &&
    typeof v.send === 'function' &&
    typeof v.cancel === 'function' &&
    typeof v.approve === 'function' &&
    typeof v.close === 'function' &&
    typeof v.host?.config?.store?.load === 'function'
  );
}

/** The app's workflow hosts of `--module`, on the one store they share. */
export interface AppWorkflows {
  /** The store the hosts were given (the app's: its folder, or PostgreSQL). */
  store: SessionStore;
  /** The host of workflow `name` (a failure naming the hosts there are when none). */
  host(name: string): Workflows;
  /** Closes the hosts (their live instances saved) and their store. */
  close(): Promise<void>;
}

/**
 * The `workflows()` hosts the app's module `spec` exports (each export that is one, named or
 * default), by workflow name. They run the instances with the app's machines, steps and
 * agents, on the store they were given: the command line opens no other.
 */
export async function loadWorkflowHosts(spec: string, cwd: string): Promise<AppWorkflows> {
  const mod = await importAppModule(spec, cwd, 'module');
  const hosts = new Map<string, Workflows>();
  for (const value of new Set(Object.values(mod))) {
    if (!isWorkflows(value)) continue;
    if (hosts.has(value.name) && hosts.get(value.name) !== value) {
      throw new CliUsageError(`--module: ${spec} exports two workflows named "${value.name}"`);
    }
    hosts.set(value.name, value);
  }
  const all = [...hosts.values()];
  if (all.length === 0) {
    throw new CliFailure(`--module: ${spec} exports no workflows() host`);
  }
  const store = all[0]!.host.config.store;
  if (all.some((h) => h.host.config.store !== store)) {
    throw new CliUsageError(`--module: the workflows ${spec} exports are on different stores`);
  }
  return {
    store,
    host(name) {
      const found = hosts.get(name);
      if (found) return found;
      throw new CliFailure(
        `--module: ${spec} exports no host of workflow "${name}" (it exports: ${[...hosts.keys()].join(', ')})`,
      );
    },
    async close() {
      for (const host of all) await host.close();
      await store.close();
    },
  };
}
