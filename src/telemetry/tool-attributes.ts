import type { Attributes } from '@opentelemetry/api';
import { AGENTSTATE, GEN_AI, OPERATION } from './gen-ai-attributes.js';

/** A tool call as its `execute_tool` span describes it. */
export interface ToolCallInfo {
  callId: string;
  name: string;
  arguments: string;
  /** The approval decision on the call, when it needed one. */
  decision?: 'approved' | 'rejected' | undefined;
  reason?: string | undefined;
}

type Content = ((text: string) => string) | undefined;

/** An `execute_tool` span's attributes; arguments only with `content` (opt-in, redacted). */
export function toolAttributes(call: ToolCallInfo, content: Content): Attributes {
  return {
    [GEN_AI.operationName]: OPERATION.executeTool,
    [GEN_AI.toolName]: call.name,
    [GEN_AI.toolCallId]: call.callId,
    [GEN_AI.toolType]: 'function',
    ...(call.decision ? { [AGENTSTATE.approvalDecision]: call.decision } : {}),
    ...(call.reason ? { [AGENTSTATE.approvalReason]: call.reason } : {}),
    ...(content ? { [GEN_AI.toolCallArguments]: content(call.arguments) } : {}),
  };
}

/** The result's attributes (its content only with `content`). */
export function toolResultAttributes(result: { output: string }, content: Content): Attributes {
  return content ? { [GEN_AI.toolCallResult]: content(result.output) } : {};
}
