export * from './errors/index.js';
export * from './context/index.js';
export * from './items/index.js';
export * from './tools/index.js';
export { OpenAIModel, type OpenAIModelOptions } from './models/openai-model.js';
export * from './models/model.js';
export * from './models/pricing.js';
export * from './machines/index.js';
export {
  LevelSessionStore,
  type LevelSessionStoreOptions,
  DEFAULT_LEVEL_PATH,
} from './persistence/level-session-store.js';
export * from './persistence/session-store.js';
export { type Migration, MigrationRegistry } from './persistence/migrations.js';
export { CURRENT_SCHEMA_VERSION } from './persistence/session-record-codec.js';
export * from './runtime/index.js';
