import type { z } from 'zod';
import type { InputGuardrail, OutputGuardrail } from '../guardrails/guardrail.js';
import type { Model, ToolSpec } from '../models/model.js';
import type { ModelSettings } from '../models/model-settings.js';
import type { PriceTable } from '../models/pricing.js';
import type { PermissionPolicy } from '../core/permission-policy.js';
import type { AnyTool } from '../tools/tool.js';

/**
 * What the steps of one agent's runs need of that agent: its model, tools and instructions.
 * A step finds the agent it works for through `JournaledStepDeps.agentFor` (the session's own
 * agent, a sub-agent, or the agent a run was handed off to).
 */
export interface AgentDeps {
  agentName: string;
  model: Model;
  tools: ReadonlyMap<string, AnyTool>;
  toolSpecs: ToolSpec[];
  /** Resolved instructions (for the session's own agent, the session's system prompt wins). */
  instructions(): string | undefined;
  /** The session's model-name override (the session's own agent only). */
  modelName(): string | undefined;
  outputType?: z.ZodType | undefined;
  outputSchema?: Record<string, unknown> | undefined;
  prices?: PriceTable | undefined;
  /** Approval deadline relative to when the call was checked, in ms. */
  approvalTimeoutMs?: number | undefined;
  /** A sub-agent's own model settings (a session's run carries its settings in its input). */
  modelSettings?: ModelSettings | undefined;
  inputGuardrails?: readonly InputGuardrail[] | undefined;
  outputGuardrails?: readonly OutputGuardrail[] | undefined;
  /** The agent's `redact` option: applied to guardrail info before it is journaled. */
  redact?: ((text: string) => string) | undefined;
  /** The agent's own permission policy (`AgentOptions.permissions`). */
  permissions?: PermissionPolicy | undefined;
  /**
   * A sub-agent's definition fingerprint as runs store it (short key -> hash), recorded in the
   * child runs its calls start. Absent for the session's own agent (its runs take it from the binding).
   */
  definition?: Readonly<Record<string, string>> | undefined;
}
