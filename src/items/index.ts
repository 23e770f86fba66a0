export type {
  Item,
  UserMessageItem,
  AssistantMessageItem,
  DeveloperMessageItem,
  SystemMessageItem,
  SummaryItem,
  ToolCallItem,
  ToolResultItem,
  ReasoningItem,
  RunInput,
} from './item.js';
export type {
  UserContentPart,
  TextPart,
  ImageUrlPart,
  ImageDataPart,
  FileDataPart,
  FileIdPart,
} from './content-part.js';
export { contentText } from './item.js';
