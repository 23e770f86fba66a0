export type {
  HistoryStrategy,
  ItemWindow,
  TokenWindow,
  SummarizeContext,
} from './history-strategy.js';
export { estimateTokens } from './token-estimate.js';
