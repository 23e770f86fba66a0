/**
 * Test helpers: the offline scripted model and embedder, the in-memory store and a fake clock.
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
