export type {
  Item,
  UserMessageItem,
  AssistantMessageItem,
  ToolCallItem,
  ToolResultItem,
  ReasoningItem,
  RunInput,
} from './item.js';
