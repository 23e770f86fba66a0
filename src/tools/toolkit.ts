import type { RunContext } from '../core/run-context.js';
import { OptionChecker, optionNames } from '../validation/option-checks.js';
import type { AnyTool } from './tool.js';

/** The per-session instance a toolkit builds. */
export interface ToolkitSession {
  tools: AnyTool[];
  /** Extra instructions appended to the agent's. */
  instructions?: string | undefined;
  /** Releases what the instance holds (connections, handles). */
  close?(): void | Promise<void>;
}

/** Builds per-session tool instances from the run's context, e.g. a DB client for that user. */
export interface Toolkit {
  readonly name: string;
  create(context: RunContext): ToolkitSession | Promise<ToolkitSession>;
}

const TOOLKIT_OPTION_NAMES = optionNames<Toolkit>({ name: true, create: true });

/** Defines a toolkit. Throws a `TypeError` for an unknown option, a missing name or `create`. */
export function toolkit(definition: Toolkit): Toolkit {
  new OptionChecker('toolkit()', definition ?? null, TOOLKIT_OPTION_NAMES)
    .nonEmptyString('name', true)
    .function('create', true);
  return definition;
}
