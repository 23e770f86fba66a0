/**
 * Attribute, span and metric names of the OpenTelemetry GenAI semantic conventions that
 * agentstate emits, and its own facts under `agentstate.*`.
 */
export const GEN_AI = {
  operationName: 'gen_ai.operation.name',
  providerName: 'gen_ai.provider.name',
  agentName: 'gen_ai.agent.name',
  conversationId: 'gen_ai.conversation.id',
  requestModel: 'gen_ai.request.model',
  responseModel: 'gen_ai.response.model',
  responseId: 'gen_ai.response.id',
  finishReasons: 'gen_ai.response.finish_reasons',
  inputTokens: 'gen_ai.usage.input_tokens',
  outputTokens: 'gen_ai.usage.output_tokens',
  cacheReadInputTokens: 'gen_ai.usage.cache_read.input_tokens',
  reasoningOutputTokens: 'gen_ai.usage.reasoning.output_tokens',
  toolName: 'gen_ai.tool.name',
  toolCallId: 'gen_ai.tool.call.id',
  toolType: 'gen_ai.tool.type',
  toolCallArguments: 'gen_ai.tool.call.arguments',
  toolCallResult: 'gen_ai.tool.call.result',
  inputMessages: 'gen_ai.input.messages',
  outputMessages: 'gen_ai.output.messages',
  systemInstructions: 'gen_ai.system_instructions',
  tokenType: 'gen_ai.token.type',
  errorType: 'error.type',
} as const;

/** Values of `gen_ai.operation.name`. */
export const OPERATION = {
  invokeAgent: 'invoke_agent',
  chat: 'chat',
  executeTool: 'execute_tool',
} as const;

/** The conventions' client metrics (histograms). */
export const GEN_AI_METRICS = {
  tokenUsage: 'gen_ai.client.token.usage',
  operationDuration: 'gen_ai.client.operation.duration',
} as const;

/** agentstate's own facts. */
export const AGENTSTATE = {
  userId: 'agentstate.user.id',
  runId: 'agentstate.run.id',
  parentRunId: 'agentstate.run.parent_id',
  agentPath: 'agentstate.agent.path',
  sessionVersion: 'agentstate.session.version',
  runStatus: 'agentstate.run.status',
  interruption: 'agentstate.run.interruption',
  turns: 'agentstate.run.turns',
  resumed: 'agentstate.run.resumed',
  restarted: 'agentstate.run.restarted',
  costUsd: 'agentstate.usage.cost_usd',
  approvalDecision: 'agentstate.approval.decision',
  approvalReason: 'agentstate.approval.reason',
  guardrails: 'agentstate.guardrails',
  guardrailTripped: 'agentstate.guardrail.tripped',
} as const;
