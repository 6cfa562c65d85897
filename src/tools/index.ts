/** The agent tools and slash-command logic, for hosts. */
export * from './catalogue.js';
export * from './context.js';
export * from '../effects/ports/toolQueue.js';
export type { ToolError, ToolErrorCode, ToolOutcome, ToolResult } from './result.js';
export { DISABLED_TEXT, runTool, type ToolDefinition } from './tool.js';
export * from './commands/index.js';
