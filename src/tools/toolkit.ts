import type { RunContext } from '../context/run-context.js';
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

/** Defines a toolkit. */
export function toolkit(definition: Toolkit): Toolkit {
  return definition;
}
