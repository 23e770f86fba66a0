export * from './model.js';
export * from './openai-model.js';
export * from './stream-accumulator.js';
export * from './pricing.js';
