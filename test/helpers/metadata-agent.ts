import { z } from 'zod';
import { Agent, getRunContext, tool, type SessionStore } from '../../src/index.js';
import { ScriptedModel } from '../../src/testing.js';

/**
 * The agent of the metadata tests (same in the test and its child process): the model asks
 * for the approval-gated `audit` tool, then answers once it has its result; `audit` and its
 * `needsApproval` record the `getRunContext().metadata` they see.
 */
export function metadataAgent(store: SessionStore) {
  const seen: { tool: Record<string, unknown>[]; check: Record<string, unknown>[] } = {
    tool: [],
    check: [],
  };
  const audit = tool({
    name: 'audit',
    description: 'Writes an audit entry for the tenant',
    parameters: z.object({ entry: z.string() }),
    needsApproval: (_args, context) => {
      seen.check.push({ ...context.metadata });
      return true;
    },
    execute: () => {
      seen.tool.push({ ...getRunContext().metadata });
      return 'audited';
    },
  });
  const model = new ScriptedModel(
    (request) =>
      request.items.at(-1)?.type === 'tool_result'
        ? { text: 'done' }
        : { toolCalls: [{ name: 'audit', arguments: { entry: 'refund' } }] },
    { recordCalls: true },
  );
  const agent = new Agent({ name: 'auditor', model, store, tools: [audit] });
  return { agent, seen };
}
