/**
 * Test helpers: the offline scripted model and embedder, the in-memory store, a fake clock,
 * crash exploration of an agent's scenario (`exploreCrashes`), the many-writers simulation
 * (`simulateWriters`) and the agent check (`checkAgent`: the certificate of what an agent can
 * reach).
 */
export {
  ScriptedModel,
  type Script,
  type ScriptedModelOptions,
  type ScriptedResponse,
  type ScriptedToolCall,
  type ReplayModelOptions,
} from './models/scripted-model.js';
export {
  scriptedEmbedder,
  type ScriptedEmbedder,
  type ScriptedEmbedderOptions,
} from './models/scripted-embedder.js';
export {
  MemorySessionStore,
  type MemorySessionStoreOptions,
} from './persistence/kv/memory-session-store.js';
export { FakeClock } from './testing/fake-clock.js';
export {
  exploreCrashes,
  replayCrash,
  type ExploreCrashesOptions,
  type ReplayCrashOptions,
} from './crash-exploration/explore-crashes.js';
export { EffectLedger, type LedgerEntry } from './crash-exploration/effect-ledger.js';
export type {
  CrashScenario,
  ScenarioStep,
  SendStep,
  ApproveStep,
  RejectStep,
  AdvanceStep,
} from './crash-exploration/crash-scenario.js';
export {
  formatCrashFailures,
  type CrashReport,
  type CrashPointResult,
  type Violation,
  type ViolationKind,
} from './crash-exploration/crash-report.js';
export type { CrashAt, CrashSide } from './crash-exploration/crashing-store.js';
export type { CrashStores, CrashStoreSpace } from './crash-exploration/crash-stores.js';
export type { InDoubtAnswer } from './crash-exploration/scenario-run.js';
export type { CrashReplay } from './crash-exploration/crash-replay-file.js';
export { simulateWriters } from './writer-simulation/simulate-writers.js';
export type {
  SimulateWritersOptions,
  SimulatedWorker,
  WriterFaults,
} from './writer-simulation/writers-options.js';
export type { WritersReport, WriterFinding } from './writer-simulation/writers-report.js';
export { checkAgent, type CheckAgentOptions } from './agent-check/check-agent.js';
export {
  CERTIFICATE_VERSION,
  type AgentCertificate,
  type AgentLoop,
  type ApprovalRule,
  type CheckedAgent,
  type InDoubtRisk,
  type LoopBound,
  type OpaqueSource,
  type ReachableTool,
  type ToolKind,
} from './agent-check/agent-certificate.js';
export {
  compareCertificates,
  type CertificateChange,
  type CertificateChanges,
} from './agent-check/compare-certificates.js';
export { certificateMarkdown, changesMarkdown } from './agent-check/certificate-markdown.js';
export { parseCertificate } from './agent-check/parse-certificate.js';
export type { CrashProcesses } from './crash-exploration/child-life.js';
