import type { AnyTool } from '../tools/tool.js';
import type { ApprovalRule } from './agent-certificate.js';

/** How a tool's calls are approved, as its definition and the permission policies say. */
export interface ToolApproval {
  approval: ApprovalRule;
  /** What asks: `needsApproval`, `permissions of <agent>`. */
  askedBy: string[];
  /** The source text of a `needsApproval` function. */
  condition?: string | undefined;
}

/** The longest condition text kept (a longer one ends with `...`). */
const MAX_CONDITION = 200;

/** A function's source on one line, cut at {@link MAX_CONDITION} characters. */
function sourceText(fn: (...args: never[]) => unknown): string {
  const text = String(fn).replace(/\s+/g, ' ').trim();
  return text.length > MAX_CONDITION ? `${text.slice(0, MAX_CONDITION - 3)}...` : text;
}

/**
 * The approval of a call of `tool` by an agent whose calls the permission policies of
 * `policyOwners` (agent names) check, as the approval check step decides it: `needsApproval:
 * true` always asks; a function asks for some arguments; a policy may ask (or allow, or deny)
 * whatever the tool says.
 */
export function toolApproval(tool: AnyTool, policyOwners: readonly string[]): ToolApproval {
  const rule = tool.needsApproval;
  const own = rule === false ? [] : ['needsApproval'];
  const askedBy = [...own, ...policyOwners.map((name) => `permissions of ${name}`)];
  const condition = typeof rule === 'function' ? { condition: sourceText(rule) } : {};
  const approval: ApprovalRule =
    rule === true ? 'always' : askedBy.length > 0 ? 'conditional' : 'never';
  return { approval, askedBy, ...condition };
}
