import { withRunContext } from '../core/run-context-storage.js';
import type { RunContext } from '../core/run-context.js';
import type { ToolCallItem, ToolResultItem } from '../items/item.js';
import type { AnyTool } from './tool.js';
import type { ToolMemory } from './tool-memory.js';

/** Parses and validates the model's arguments for `t`; returns the args or a problem. */
export function parseToolArguments(
  t: AnyTool,
  raw: string,
): { ok: true; args: unknown } | { ok: false; problem: string } {
  let json: unknown;
  try {
    json = raw.trim() === '' ? {} : JSON.parse(raw);
  } catch (error) {
    return { ok: false, problem: `arguments are not valid JSON (${(error as Error).message})` };
  }
  const parsed = t.parameters.safeParse(json);
  if (!parsed.success) {
    const issues = parsed.error.issues
      .map((i) => `${i.path.length ? i.path.join('.') : '(root)'}: ${i.message}`)
      .join('; ');
    return { ok: false, problem: `arguments do not match the schema: ${issues}` };
  }
  return { ok: true, args: parsed.data };
}

function errorResult(call: ToolCallItem, output: string): ToolResultItem {
  return { type: 'tool_result', callId: call.callId, name: call.name, output, isError: true };
}

/** The text of anything thrown: an Error's message, else its string form. */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Renders a tool's return value as the text the model reads. */
export function renderToolOutput(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined) return '';
  return JSON.stringify(value);
}

/**
 * Runs one tool call: unknown tools, invalid arguments and thrown errors become error items
 * the model can read, so the run goes on. Cancellation (an aborted signal) is rethrown.
 */
export async function invokeTool(
  tools: ReadonlyMap<string, AnyTool>,
  call: ToolCallItem,
  context: RunContext,
  signal: AbortSignal,
  memory?: ToolMemory,
): Promise<ToolResultItem> {
  const t = tools.get(call.name);
  if (!t) {
    const known = [...tools.keys()].join(', ') || 'none';
    return errorResult(call, `Error: unknown tool "${call.name}" (available: ${known})`);
  }
  const parsed = parseToolArguments(t, call.arguments);
  if (!parsed.ok) return errorResult(call, `Error: tool "${call.name}" ${parsed.problem}`);
  try {
    const value = await withRunContext(context, () =>
      t.execute(parsed.args, {
        context,
        signal,
        callId: call.callId,
        ...(memory ? { memory } : {}),
      }),
    );
    return {
      type: 'tool_result',
      callId: call.callId,
      name: call.name,
      output: renderToolOutput(value),
    };
  } catch (error) {
    if (signal.aborted) throw error;
    return errorResult(call, `Error: tool "${call.name}" failed: ${errorText(error)}`);
  }
}
