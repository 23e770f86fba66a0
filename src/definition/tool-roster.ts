import type { AnyTool } from '../tools/tool.js';
import type { AgentOptions } from './agent-options.js';
import type { DefinitionCache } from './definition-cache.js';

/** The tools of one toolkit, as a session of it (or a caller who resolved it) gives them. */
export interface ToolkitTools {
  /** The toolkit's name, or its index in `toolkits` when unknown. */
  readonly name: string;
  readonly tools: readonly AnyTool[];
}

/**
 * Every tool an agent's model is given, in order: its own `tools`, the tools of its toolkits
 * (as given), a `transfer_to_<name>` tool per handoff and its memory's tools. One list for the
 * runtime's binding and for the agent check.
 * @throws TypeError when two of them share a name, naming where each comes from.
 */
export function toolRoster(
  options: AgentOptions<unknown>,
  toolkits: readonly ToolkitTools[],
  shared: DefinitionCache,
): AnyTool[] {
  const sourced = [
    ...(options.tools ?? []).map((t) => ({ t, source: 'its tools' })),
    ...toolkits.flatMap((kit) => kit.tools.map((t) => ({ t, source: `toolkit "${kit.name}"` }))),
    ...(options.handoffs ?? []).map((h) => ({ t: shared.handoffTool(h), source: 'its handoffs' })),
    ...shared.memoryTools(options.memory).map((t) => ({ t, source: 'its memory' })),
  ];
  const sources = new Map<string, string>();
  for (const { t, source } of sourced) {
    const other = sources.get(t.name);
    if (other !== undefined) {
      const from = other === source ? `${source} (twice)` : `${other} and ${source}`;
      throw new TypeError(
        `Agent "${options.name}" has two tools named "${t.name}", from ${from}: rename one (an mcpToolkit takes a \`prefix\`)`,
      );
    }
    sources.set(t.name, source);
  }
  return sourced.map(({ t }) => t);
}
