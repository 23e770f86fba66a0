import type { Clock } from '../core/clock.js';
import type { SessionStore } from '../persistence/session-store.js';
import type { Agent } from '../agent/agent.js';
import type { StepSource } from '../workflow-host/step-definition.js';
import type { WorkflowMigration } from '../workflow-host/stored-instances.js';
import { OptionChecker, optionNames } from '../validation/option-checks.js';
import { checkStoreOption } from '../persistence/store-supports.js';

/** Options of `workflows(machine, options)`. */
export interface WorkflowsOptions {
  /** The workflow's name, stored with each instance. @default the machine's id */
  name?: string | undefined;
  /**
   * Where instances live (a store with a message inbox: LevelDB, memory, PostgreSQL; PostgreSQL
   * for many processes). @default the LevelDB store in `./.agentstate` (as agents)
   */
  store?: SessionStore | undefined;
  /**
   * The machine's durable steps, by the name its `invoke.src` uses: `fromPromise` logic or a
   * `StepDefinition` (`run`, `idempotent`, `onInterrupted`, `reconcile`). A step's outcome is
   * journaled and never run again once the machine took it.
   */
  steps?: Readonly<Record<string, StepSource>> | undefined;
  /** Agents the machine invokes by name: each invocation runs a linked session. */
  agents?: Readonly<Record<string, Agent>> | undefined;
  /**
   * The definition's version (a positive integer). An instance saved by an older version is
   * migrated by `migrations` when loaded; one saved by another definition at the same version
   * is refused (`WorkflowDefinitionChangedError`). @default 1
   */
  version?: number | undefined;
  /** `migrations[n]` turns a machine snapshot saved by version `n` into one of version `n + 1`. */
  migrations?: Readonly<Record<number, WorkflowMigration>> | undefined;
  /** @default the system clock */
  clock?: Clock | undefined;
  /** This process's name in leases. @default a new id per host */
  owner?: string | undefined;
  /** How long a process holds an instance without renewing (ms). @default 30000 */
  leaseTtlMs?: number | undefined;
  /**
   * How often (ms, by `clock`) a live instance reads its inbox for what other processes sent,
   * and a caller waits for another process to apply what it sent. @default 1000
   */
  pollIntervalMs?: number | undefined;
}

const NAMES = optionNames<WorkflowsOptions>({
  name: true,
  store: true,
  steps: true,
  agents: true,
  version: true,
  migrations: true,
  clock: true,
  owner: true,
  leaseTtlMs: true,
  pollIntervalMs: true,
});

/** Checks `workflows()`'s options (`TypeError` naming the option). */
export function checkWorkflowsOptions(options: unknown): asserts options is WorkflowsOptions {
  new OptionChecker('workflows()', options, NAMES)
    .nonEmptyString('name')
    .object('store')
    .object('steps')
    .object('agents')
    .positiveInteger('version')
    .object('migrations')
    .object('clock')
    .nonEmptyString('owner')
    .positiveInteger('leaseTtlMs')
    .positiveInteger('pollIntervalMs');
  checkStoreOption('workflows()', options);
}
