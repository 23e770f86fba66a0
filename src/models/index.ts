export type {
  Model,
  ModelRequest,
  ModelResponse,
  ModelUsage,
  ModelStreamEvent,
  ModelCallOptions,
  FinishReason,
  ToolSpec,
} from './model.js';
export type { ModelSettings, ToolChoice, ReasoningEffort } from './model-settings.js';
export { OpenAIModel, type OpenAIModelOptions } from './openai-model.js';
export {
  defaultPrices,
  withPrices,
  findPrice,
  costUsd,
  type ModelPrice,
  type PriceTable,
} from './pricing.js';
export { parseReplay, type ReplayFile } from './replay-file.js';
