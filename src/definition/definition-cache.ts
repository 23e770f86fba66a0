import { z } from 'zod';
import { jsonSchemaOf } from '../tools/json-schema-of.js';
import type { AnyTool } from '../tools/tool.js';
import {
  definitionFingerprint,
  storedDefinition,
  type DefinitionFingerprint,
  type DefinitionSource,
} from './definition-fingerprint.js';
import { handoffTool, type HandoffTarget } from './handoff-tool.js';
import { memoryTools } from '../memory/memory-tools.js';
import type { MemoryOptions } from '../memory/memory-options.js';

/** A fingerprint with its stored form, and the inputs it was computed from. */
interface Computed {
  inputs: readonly unknown[];
  fingerprint: DefinitionFingerprint;
  stored: Readonly<Record<string, string>>;
}

/** Stands for instructions given as a function: the fingerprint reads only that they are one. */
const FUNCTION_INSTRUCTIONS = Symbol('function instructions');

/**
 * What every binding of one agent shares, computed once per definition instead of once per
 * binding (an agent binds once per action, so once per message): its handoff tools, the JSON
 * Schema of its `outputType`, its memory's tools, and its definition fingerprint. The fingerprint is reused while
 * what it reads is the same (the same strings and the same objects: each tool's parameters
 * schema, the output schema, the model settings); a binding whose toolkits give other tools or
 * schemas gets its own, computed as before. Those objects are read as immutable, as the agent's
 * options are (`tool()` builds a tool's schema once).
 */
export class DefinitionCache {
  private readonly handoffs = new WeakMap<HandoffTarget, AnyTool>();
  private memory: { options: MemoryOptions; tools: AnyTool[] } | undefined;
  private output: { type: z.ZodType; schema: Record<string, unknown> } | undefined;
  private last: Computed | undefined;

  /** The tool that hands the run to `agent` (see `handoffTool`), one per target agent. */
  handoffTool(agent: HandoffTarget): AnyTool {
    let made = this.handoffs.get(agent);
    if (!made) {
      made = handoffTool(agent);
      this.handoffs.set(agent, made);
    }
    return made;
  }

  /** The tools of the agent's memory (see `memoryTools`), made once per `memory` option. */
  memoryTools(options: MemoryOptions | undefined): AnyTool[] {
    if (!options) return [];
    if (this.memory?.options !== options) this.memory = { options, tools: memoryTools(options) };
    return this.memory.tools;
  }

  /** The JSON Schema of the agent's `outputType` (`agentName` names it in an error). */
  outputSchema(agentName: string, outputType: z.ZodType): Record<string, unknown> {
    if (this.output?.type !== outputType) {
      const schema = jsonSchemaOf(`The outputType of agent "${agentName}"`, () =>
        z.toJSONSchema(outputType),
      );
      this.output = { type: outputType, schema };
    }
    return this.output.schema;
  }

  /** `source`'s fingerprint and its stored form (`storedDefinition`), reused while unchanged. */
  fingerprintOf(source: DefinitionSource): Omit<Computed, 'inputs'> {
    const inputs = inputsOf(source);
    const last = this.last;
    if (last && sameInputs(last.inputs, inputs)) return last;
    const fingerprint = definitionFingerprint(source);
    this.last = { inputs, fingerprint, stored: storedDefinition(fingerprint) };
    return this.last;
  }
}

/** Everything `definitionFingerprint` reads of `source`, compared by identity. */
function inputsOf({ options, toolSpecs, outputSchema }: DefinitionSource): unknown[] {
  const { instructions } = options;
  const inputs: unknown[] = [
    options.version,
    typeof instructions === 'function' ? FUNCTION_INSTRUCTIONS : instructions,
    options.model.provider,
    options.model.name,
    options.modelSettings,
    outputSchema,
  ];
  for (const spec of toolSpecs) inputs.push(spec.name, spec.parameters);
  return inputs;
}

const sameInputs = (a: readonly unknown[], b: readonly unknown[]): boolean =>
  a.length === b.length && a.every((value, i) => value === b[i]);
