/**
 * Test helpers: the offline scripted model and embedder, the in-memory store, a fake clock and
 * the many-writers simulation.
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
export { simulateWriters } from './writer-simulation/simulate-writers.js';
export type {
  SimulateWritersOptions,
  SimulatedWorker,
  WriterFaults,
} from './writer-simulation/writers-options.js';
export type { WritersReport, WriterFinding } from './writer-simulation/writers-report.js';
