import ts from 'typescript';

/**
 * The root export of `agentstate`, pinned: a name added to or dropped from `src/index.ts`
 * (an internal leaking out, or a public name lost) fails the tests until this list and
 * docs/reference/api.md (test/docs/docs-api.test.ts) agree with it.
 */
export const ROOT_VALUES = [
  // runtime
  'Agent',
  'AgentSession',
  'SessionRuntime',
  'RunState',
  'RUN_STATE_SCHEMA_VERSION',
  'closeDefaultStores',
  // session actions
  'sendMessage',
  'continueRun',
  'cancelRun',
  'resumeSession',
  'suspendSession',
  'completeSession',
  'failSession',
  'clearSession',
  'changeModel',
  'changeBudget',
  'changeSystemPrompt',
  'writeMetadata',
  'updateTask',
  'forkSession',
  'deleteSession',
  'exportReplay',
  'parseReplay',
  // items and context windows
  'contentText',
  'estimateTokens',
  // tools
  'tool',
  'toolkit',
  // context
  'RunContext',
  'getRunContext',
  'findRunContext',
  'withRunContext',
  // models and pricing
  'OpenAIModel',
  'openaiEmbedder',
  'defaultPrices',
  'defaultEmbeddingPrices',
  'withPrices',
  'findPrice',
  'costUsd',
  // persistence (store implementers: agentstate/store)
  'LevelSessionStore',
  'DEFAULT_LEVEL_PATH',
  // errors
  'AgentStateError',
  'ERROR_CODES',
  'NoActiveRunError',
  'ModelError',
  'ModelBehaviorError',
  'ScriptExhaustedError',
  'OutputValidationError',
  'RunCancelledError',
  'InvalidRunStateError',
  'UnknownCallError',
  'StaleDecisionError',
  'ApprovalExpiredError',
  'AlreadyDecidedError',
  'CallNotInDoubtError',
  'InvalidReconcileOutcomeError',
  'AmbiguousCallError',
  'MaxTurnsExceededError',
  'SessionNotFoundError',
  'SessionConflictError',
  'InvalidSessionTransitionError',
  'InvalidSessionRecordError',
  'UnsupportedSchemaVersionError',
  'SessionSaveFailedError',
  'NothingToResumeError',
  'WrongAgentError',
  'DefinitionChangedError',
  'RestoreFailedError',
  'RunPausedError',
  'RunInProgressError',
  'MessageQueuedError',
  'MessageAnsweredError',
  'LeaseLostError',
  'StoreUnavailableError',
  'StoreNotFoundError',
  'StoreLockedError',
  'StoreOpenFailedError',
  'ApprovalCheckError',
  'PermissionCheckError',
  'UnpricedModelError',
  'ToolkitError',
  'McpCallError',
  'InstructionsError',
  'InvalidSchemaError',
  'SubAgentDepthError',
  'GuardrailTripwireError',
  'GuardrailError',
  'ForkPositionError',
  'InvalidReplayError',
  'RunNotFoundError',
  'RecoveryExhaustedError',
  'IdTooLongError',
  'MAX_ID_LENGTH',
  // workflows: an app's own machine hosted like a session
  'workflows',
  'Workflows',
  'WorkflowNotFoundError',
  'WorkflowExistsError',
  'WorkflowMismatchError',
  'WorkflowDefinitionChangedError',
  'WorkflowCancelledError',
  'EventNotAcceptedError',
  'InvalidEventError',
  'UndeclaredActorError',
  'StepInterruptedError',
].sort();

/** Names the root exports as types only. */
export const ROOT_TYPES = [
  'WorkflowsOptions',
  'WorkflowInfo',
  'WorkflowSummary',
  'WorkflowApproval',
  'Recovered',
  'InstanceScope',
  'WorkflowScheduler',
  'WorkflowSchedulerOptions',
  'StepContext',
  'StepDefinition',
  'StepReconcileOutcome',
  'StepSource',
  'StepResolution',
  'WorkflowMigration',
  'WorkflowEventOutput',
  'WorkflowStepOutput',
  'InputGuardrail',
  'OutputGuardrail',
  'GuardrailVerdict',
  'GuardrailInput',
  'GuardrailOutput',
  'GuardrailResult',
  'TelemetryOptions',
  'Logger',
  'LogLevel',
  'LogEvent',
  'AgentOptions',
  'AgentToolOptions',
  'AgentActorLogic',
  'AgentActorInput',
  'AgentActorOutput',
  'AgentActorEvent',
  'AgentActorEmitted',
  'AgentActorSnapshot',
  'AgentActorContext',
  'SubRunSummary',
  'SnapshotMigration',
  'DefinitionFingerprint',
  'DefinitionChange',
  'DefinitionPartChange',
  'RunOptions',
  'ResumeOptions',
  'ApproveOptions',
  'RejectOptions',
  'StreamDecision',
  'CancelOptions',
  'StartSchedulerOptions',
  'ApprovalSchedulerOptions',
  'ApprovalSchedulerHandle',
  'SessionRunOptions',
  'RunResult',
  'RunStateData',
  'Interruption',
  'ApprovalDecision',
  'RunStream',
  'RunStreamEvent',
  'AttachOptions',
  'AttachEvent',
  'AttachEventBody',
  'SessionRuntimeOptions',
  'PermissionPolicy',
  'PermissionDecision',
  'PermissionCall',
  'PermissionScope',
  'AuditEntry',
  'AuditKind',
  'AuditVia',
  'AuditQuery',
  'AuditPage',
  'SessionRuntimeEvents',
  'SessionRuntimeEventType',
  'SessionAction',
  'RecoverOptions',
  'RecoveredRun',
  'LeaseSettings',
  'SessionView',
  'RunStatus',
  'RunStatusView',
  'RunActionOptions',
  'ContinueRunOptions',
  'DeleteSessionOptions',
  'ForkSessionOptions',
  'ExportReplayOptions',
  'ReplayFile',
  'Clock',
  'InspectOption',
  'RunUsage',
  'InterruptionReason',
  'Budget',
  'SessionConfig',
  'Item',
  'UserMessageItem',
  'AssistantMessageItem',
  'ToolCallItem',
  'ToolResultItem',
  'ReasoningItem',
  'DeveloperMessageItem',
  'SystemMessageItem',
  'SummaryItem',
  'UserContentPart',
  'TextPart',
  'ImageUrlPart',
  'ImageDataPart',
  'FileDataPart',
  'FileIdPart',
  'RunInput',
  'HistoryStrategy',
  'ItemWindow',
  'TokenWindow',
  'SummarizeContext',
  'Tool',
  'AnyTool',
  'ToolDefinition',
  'ToolExecuteOptions',
  'ToolErrorHook',
  'ToolErrorInfo',
  'RecoveryExhaustedHook',
  'StepRef',
  'NeedsApproval',
  'OnInterrupted',
  'Reconcile',
  'ReconcileOutcome',
  'InDoubtRecord',
  'InDoubtAction',
  'OperatorResolution',
  'InDoubtResolution',
  'InDoubtCall',
  'ResolveInDoubtOptions',
  'Toolkit',
  'ToolkitSession',
  'RunContextInit',
  'RunContextOverrides',
  'Model',
  'ModelRequest',
  'ModelResponse',
  'ModelUsage',
  'ModelStreamEvent',
  'ModelCallOptions',
  'FinishReason',
  'ToolSpec',
  'ModelSettings',
  'ToolChoice',
  'ReasoningEffort',
  'OpenAIModelOptions',
  'OpenAIEmbedderOptions',
  'Embedder',
  'EmbeddingUsage',
  'ModelPrice',
  'PriceTable',
  'LevelSessionStoreOptions',
  'SessionStore',
  'SessionKey',
  'Durability',
  'WhileBusy',
  'SessionInfo',
  'SessionRecord',
  'SessionStatus',
  'ListSessionsQuery',
  'SessionPage',
  'UsageTotals',
  'ErrorCode',
  'ErrorScope',
  'SerializedError',
  'McpCallFailure',
].sort();

/** The `agentstate-runtime/testing` export. */
export const TESTING_VALUES = [
  'FakeClock',
  'MemorySessionStore',
  'ScriptedModel',
  'scriptedEmbedder',
].sort();
export const TESTING_TYPES = [
  'Script',
  'ScriptedModelOptions',
  'ScriptedResponse',
  'ScriptedToolCall',
  'ReplayModelOptions',
  'MemorySessionStoreOptions',
  'ScriptedEmbedder',
  'ScriptedEmbedderOptions',
].sort();

/** The `agentstate-runtime/ai-sdk` export. */
export const AI_SDK_VALUES = ['aiSdkModel', 'aiSdkEmbedder'].sort();
export const AI_SDK_TYPES = [
  'AiSdkLanguageModel',
  'AiSdkModelOptions',
  'AiSdkEmbeddingModel',
  'AiSdkEmbedderOptions',
].sort();

/** The `agentstate-runtime/mcp` export (its own subpath: the MCP SDK is an optional peer dependency). */
export const MCP_VALUES = ['mcpToolkit'];
export const MCP_TYPES = [
  'McpToolkit',
  'McpToolkitOptions',
  'McpConnect',
  'McpStdioServer',
  'McpHttpServer',
  'McpTransportFactory',
  'McpNeedsApproval',
  'McpToolArguments',
].sort();

/** The `agentstate-runtime/postgres` export. */
export const POSTGRES_VALUES = ['POSTGRES_SCHEMA_VERSION', 'PostgresSessionStore'].sort();
export const POSTGRES_TYPES = ['PostgresSessionStoreOptions'].sort();

/** The `agentstate-runtime/inspect` export (the local inspector server). */
export const INSPECT_VALUES = ['startInspector'];
export const INSPECT_TYPES = [
  'InspectorOptions',
  'InspectorHandle',
  'LiveFrame',
  'InspectedWorkflows',
].sort();

/** The `agentstate-runtime/http` export (the chat handler on web-standard Request/Response). */
export const HTTP_VALUES = ['createChatHandler', 'toNodeListener', 'HttpError'].sort();
export const HTTP_TYPES = [
  'ChatHandler',
  'ChatHandlerOptions',
  'HttpErrorStatus',
  'UiMessageChunk',
  'UiMessage',
  'UiPart',
  'AguiEvent',
  'AguiInterrupt',
  'AguiMessage',
].sort();

/** The `agentstate-runtime/store` export: for store implementers, with the contract test suite. */
export const STORE_VALUES = [
  'storeContract',
  'RecordCodecs',
  'RecordMigrationRegistry',
  'CURRENT_SCHEMA_VERSION',
  'emptyTotals',
  'STORE_CONTRACT',
  'STORE_CAPABILITIES',
  'storeSupports',
  'checkStoreSupports',
  'supportsCapability',
  'hasLeases',
  'hasDecisionInbox',
  'hasMessageInbox',
  'canWatchSessions',
  'LIST_ORDERS',
  'listPosition',
  'checkListOrder',
  'LIST_KINDS',
  'kindOf',
  'checkListKind',
].sort();
export const STORE_TYPES = [
  'ListOrder',
  'ListKind',
  'SessionStore',
  'SessionKey',
  'SessionInfo',
  'SessionRecord',
  'SessionStatus',
  'SessionCommit',
  'LoadedSession',
  'JournalEntry',
  'ListSessionsQuery',
  'SessionPage',
  'StoreStats',
  'UsageTotals',
  'StoreCapability',
  'StoreSupports',
  'StoreManifest',
  'CapabilityMethods',
  'SessionLease',
  'SessionLeases',
  'StoredLease',
  'ExpiredLeaseQuery',
  'DecisionInbox',
  'DecisionSubmission',
  'SubmittedDecisions',
  'DecisionWatch',
  'MessageInbox',
  'MessageSubmission',
  'QueuedMessage',
  'QueuedKind',
  'SessionWatches',
  'DeadlineEntry',
  'DueApprovalsQuery',
  'DueApprovals',
  'AuditEntry',
  'AuditKind',
  'AuditVia',
  'AuditQuery',
  'AuditPage',
  'RecordCodecsOptions',
  'RecordMigration',
  'ContractTests',
  'StoreUnderTest',
  'OpenStore',
  'StoreContractOptions',
].sort();

/** A module's exported names as TypeScript sees them, split into values and types only. */
export interface ExportedNames {
  values: string[];
  types: string[];
}

/**
 * Reads the exports of each entry file (`.ts` source or `.d.ts` declarations) with the
 * TypeScript compiler, so type-only exports are pinned as well as runtime ones.
 */
export function exportedNames(
  entries: readonly string[],
  options: ts.CompilerOptions = {},
): ExportedNames[] {
  const program = ts.createProgram([...entries], {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    skipLibCheck: true,
    noEmit: true,
    ...options,
  });
  const checker = program.getTypeChecker();
  return entries.map((entry) => {
    const file = program.getSourceFile(entry);
    if (!file) throw new Error(`TypeScript did not load ${entry}`);
    const moduleSymbol = checker.getSymbolAtLocation(file);
    if (!moduleSymbol) throw new Error(`${entry} is not a module`);
    const values: string[] = [];
    const types: string[] = [];
    for (const symbol of checker.getExportsOfModule(moduleSymbol)) {
      const target =
        symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
      const typeOnly = target.flags & ts.SymbolFlags.Value ? isTypeOnly(symbol) : true;
      (typeOnly ? types : values).push(symbol.name);
    }
    return { values: values.sort(), types: types.sort() };
  });
}

/** True when an alias was exported with `export type` (a value re-exported as a type). */
function isTypeOnly(symbol: ts.Symbol): boolean {
  return (symbol.declarations ?? []).some((d) => ts.isTypeOnlyExportDeclaration(d));
}
