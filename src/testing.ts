/** Test helpers: the offline scripted model, the in-memory store and a fake clock. */
export {
  ScriptedModel,
  type Script,
  type ScriptedModelOptions,
  type ScriptedResponse,
  type ScriptedToolCall,
  type ReplayModelOptions,
} from './models/scripted-model.js';
export {
  MemorySessionStore,
  type MemorySessionStoreOptions,
} from './persistence/kv/memory-session-store.js';
export { FakeClock } from './testing/fake-clock.js';
