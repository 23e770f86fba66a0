export type {
  Item,
  UserMessageItem,
  AssistantMessageItem,
  ToolCallItem,
  ToolResultItem,
  RunInput,
} from './item.js';
