/**
 * AI SDK providers as agentstate models: `aiSdkModel(model)` adapts any language model of the
 * `@ai-sdk/provider` specification (v3 or v4), `aiSdkEmbedder(model, { dimensions })` any
 * embedding model. `@ai-sdk/provider` is an optional peer dependency, imported for its types
 * only.
 */
export {
  aiSdkModel,
  type AiSdkLanguageModel,
  type AiSdkModelOptions,
} from './models/ai-sdk-model.js';
export {
  aiSdkEmbedder,
  type AiSdkEmbeddingModel,
  type AiSdkEmbedderOptions,
} from './models/ai-sdk-embedder.js';
