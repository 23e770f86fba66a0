import { pathToFileURL } from 'node:url';
import { Agent } from '../agent/agent.js';
import { FakeClock } from '../testing/fake-clock.js';
import { EffectLedger } from './effect-ledger.js';

/** What a child process of `exploreCrashes({ processes })` takes from the agent's module. */
export interface ChildModuleExports {
  agent: Agent;
  effects: EffectLedger | undefined;
  clock: FakeClock | undefined;
}

/** Which exports to read: `undefined` for a ledger or a clock the exploration does not use. */
export interface ChildModuleNames {
  /** The agent's export (`undefined`: the default export, else `agent`). */
  export?: string | undefined;
  effects?: string | undefined;
  clock?: string | undefined;
}

/** The module's export among `names` (the first present), checked to be an instance of `type`. */
function exported<T>(
  module: Record<string, unknown>,
  names: readonly string[],
  type: abstract new (...args: never[]) => T,
  what: string,
  file: string,
): T {
  const name = names.find((n) => module[n] !== undefined);
  const value = name === undefined ? undefined : module[name];
  if (!(value instanceof type))
    throw new TypeError(
      `exploreCrashes: options.processes.module ${file} has no export ${names.join(' or ')} that is ${what}`,
    );
  return value;
}

/**
 * Imports the agent's module (`file`, absolute) and reads the agent, the ledger and the clock a
 * child process uses from it; a `TypeError` names an export that is missing or of another type.
 */
export async function importChildModule(
  file: string,
  names: ChildModuleNames,
): Promise<ChildModuleExports> {
  const module = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  const agentNames = names.export === undefined ? ['default', 'agent'] : [names.export];
  return {
    agent: exported(module, agentNames, Agent, 'an Agent', file),
    effects:
      names.effects === undefined
        ? undefined
        : exported(module, [names.effects], EffectLedger, 'an EffectLedger', file),
    clock:
      names.clock === undefined
        ? undefined
        : exported(module, [names.clock], FakeClock, 'a FakeClock', file),
  };
}

/**
 * The exports a child reads for an exploration: the agent's, and the ledger's and the clock's
 * when the exploration has them (`'effects'` and `'clock'` unless `processes` names others).
 */
export function childModuleNames(
  processes: ChildModuleNames,
  uses: { effects?: unknown; clock?: unknown },
): ChildModuleNames {
  return {
    export: processes.export,
    effects: uses.effects ? (processes.effects ?? 'effects') : undefined,
    clock: uses.clock ? (processes.clock ?? 'clock') : undefined,
  };
}

/**
 * Checks, before any point runs, that the module exports what the children will read: imports
 * it here (a TypeError names what is missing). A module this process cannot import by itself
 * (TypeScript, without a loader here) is left to the children, which run it through tsx.
 */
export async function checkChildModule(file: string, names: ChildModuleNames): Promise<void> {
  try {
    await importChildModule(file, names);
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ERR_UNKNOWN_FILE_EXTENSION') return;
    throw error;
  }
}
