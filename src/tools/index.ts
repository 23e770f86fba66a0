export {
  tool,
  type Tool,
  type AnyTool,
  type ToolDefinition,
  type ToolExecuteOptions,
  type NeedsApproval,
} from './tool.js';
export { toolkit, type Toolkit, type ToolkitSession } from './toolkit.js';
export type { ToolErrorHook, ToolErrorInfo } from './guard-tool.js';
