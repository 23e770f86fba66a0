import { createHash } from 'node:crypto';
import { MACHINE_VERSION } from '../machines/session-machine.js';
import type { Model, ToolSpec } from '../models/model.js';
import type { ModelSettings } from '../models/model-settings.js';
import type { DefinitionPartChange } from '../errors/session-errors.js';

/**
 * What defined a run, part by part: a short hash (8 base64url characters of a SHA-256) of
 * each part, never its text, so a run's stored context stays small and holds no prompt, schema
 * or setting in clear (it is stored under short keys, see `storedDefinition`). The parts:
 * - `version`, when the agent gives one (`AgentOptions.version`), else `instructions`: the
 *   instructions string, or only the fact that they are a function (their text depends on
 *   each run's context, so a function's output is not pinned: give `version` to pin it);
 * - `tool:<name>.parameters` per tool of the agent (its parameters' JSON Schema): its own
 *   tools, its toolkits' tools as the session's binding lists them, its sub-agent and handoff
 *   tools;
 * - `output`: the JSON Schema of `outputType`, when it has one;
 * - `model`: the model's provider and name (never its client, key or headers);
 * - `modelSettings`: the agent's `modelSettings`, when it has some;
 * - `machine`: the version of agentstate's machines.
 * The agent's name is the run's `agentName` (checked first: `WrongAgentError`).
 * @example { instructions: 'hK3v0x_Q', 'tool:refund.parameters': '9QeVb2xA', model: '...' }
 */
export type DefinitionFingerprint = Readonly<Record<string, string>>;

/** What the fingerprint is computed from: an agent's options, as bound to one session. */
export interface DefinitionSource {
  options: {
    readonly version?: string | undefined;
    readonly instructions?: unknown;
    readonly model: Pick<Model, 'name' | 'provider'>;
    readonly modelSettings?: ModelSettings | undefined;
  };
  toolSpecs: readonly ToolSpec[];
  outputSchema: Record<string, unknown> | undefined;
}

const digest = (value: unknown): string =>
  createHash('sha256')
    .update(JSON.stringify(value) ?? 'undefined')
    .digest('base64url')
    .slice(0, 8);

const TOOL_PARAMETERS = /^tool:(.+)\.parameters$/;

/** The short key each fixed part is stored under (a tool's parameters: `t:<name>`). */
const SHORT_KEYS: Readonly<Record<string, string>> = {
  instructions: 'i',
  version: 'v',
  output: 'o',
  model: 'm',
  modelSettings: 's',
  machine: 'x',
};
const LONG_KEYS: Readonly<Record<string, string>> = Object.fromEntries(
  Object.entries(SHORT_KEYS).map(([long, short]) => [short, long]),
);

/**
 * A fingerprint as a run stores it, in its context (written with every save of the run):
 * the same hashes under short keys. `readDefinition` gives the part names back.
 * @example { i: 'hK3v0x_Q', 't:refund': '9QeVb2xA', m: '...', x: '...' }
 */
export function storedDefinition(fingerprint: DefinitionFingerprint): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [part, hash] of Object.entries(fingerprint)) {
    out[SHORT_KEYS[part] ?? part.replace(TOOL_PARAMETERS, 't:$1')] = hash;
  }
  return out;
}

/** The fingerprint a run stored (`storedDefinition`), with its part names. */
export function readDefinition(stored: Readonly<Record<string, string>>): DefinitionFingerprint {
  const out: Record<string, string> = {};
  for (const [key, hash] of Object.entries(stored)) {
    out[LONG_KEYS[key] ?? (key.startsWith('t:') ? `tool:${key.slice(2)}.parameters` : key)] = hash;
  }
  return out;
}

/** The fingerprint of an agent's definition (see `DefinitionFingerprint`). */
export function definitionFingerprint(source: DefinitionSource): DefinitionFingerprint {
  const { options } = source;
  const parts: Record<string, string> = {};
  if (options.version !== undefined) parts['version'] = digest(options.version);
  else {
    const { instructions } = options;
    parts['instructions'] = digest(
      typeof instructions === 'function' ? { function: true } : (instructions ?? null),
    );
  }
  for (const spec of source.toolSpecs) {
    parts[`tool:${spec.name}.parameters`] = digest(spec.parameters);
  }
  if (source.outputSchema) parts['output'] = digest(source.outputSchema);
  parts['model'] = digest([options.model.provider ?? null, options.model.name]);
  if (options.modelSettings) parts['modelSettings'] = digest(options.modelSettings);
  parts['machine'] = digest(MACHINE_VERSION);
  return parts;
}

/**
 * The parts of `stored` that `current` does not have as they were, in a stable order: changed
 * parts first, then added, then removed. A tool added or removed is named `tool:<name>`.
 */
export function definitionChanges(
  stored: DefinitionFingerprint,
  current: DefinitionFingerprint,
): DefinitionPartChange[] {
  const name = (part: string): string => part.replace(TOOL_PARAMETERS, 'tool:$1');
  const changed: DefinitionPartChange[] = [];
  const added: DefinitionPartChange[] = [];
  const removed: DefinitionPartChange[] = [];
  for (const [part, hash] of Object.entries(current)) {
    const was = stored[part];
    if (was === undefined) added.push({ part: name(part), change: 'added' });
    else if (was !== hash) changed.push({ part, change: 'changed' });
  }
  for (const part of Object.keys(stored)) {
    if (current[part] === undefined) removed.push({ part: name(part), change: 'removed' });
  }
  return [...changed, ...added, ...removed];
}

/**
 * A paused or crashed run whose definition changed, as `AgentOptions.compatibleWith` of the
 * run's agent reads it (a sub-agent's run: the sub-agent's own option).
 */
export interface DefinitionChange {
  sessionId: string;
  runId: string;
  /** The run's agents, the top-level one first (a session's own run: its agent alone). */
  agentPath: string[];
  /** What differs (`changes.map((c) => c.part)` is what `DefinitionChangedError.changed` lists). */
  changes: DefinitionPartChange[];
  /** The fingerprint the run recorded when it started. */
  stored: DefinitionFingerprint;
  /** The fingerprint of the agent asked to continue it. */
  current: DefinitionFingerprint;
}
