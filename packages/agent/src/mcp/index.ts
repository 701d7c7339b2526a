/**
 * The MCP side of the agent: the servers config, tool names, and the registry that connects the
 * servers and routes tool calls. Named exports only; everything here is public API.
 */

/** MCP types a host implements against (forms, tool annotations, results), from the SDK client. */
export type {
  CallToolResult,
  ElicitRequest,
  ElicitResult,
  PrimitiveSchemaDefinition,
  ToolAnnotations,
} from '@modelcontextprotocol/client';
export { loadServersConfig, type ParseConfigOptions, PROTOCOL_MODES, parseServersConfig } from './config.js';
export { DEFAULT_CONNECT_TIMEOUT_MS } from './connection.js';
export { createToolNameTable, MAX_TOOL_NAME_LENGTH, namespaceToolName, type ToolNameTable } from './names.js';
export { AUTO_PROBE_TIMEOUT_MS, DEFAULT_PROTOCOL_MODE } from './negotiation.js';
export {
  createRegistry,
  type McpRegistry,
  type RegistryOAuthOptions,
  type RegistryOptions,
  type ServerReport,
  type ServerStatus,
} from './registry.js';
export { systemClock, type TaskClock } from './tasks/clock.js';
export {
  DEFAULT_POLL_INTERVAL_MS,
  MAX_POLL_INTERVAL_MS,
  MIN_POLL_INTERVAL_MS,
  TASKS_EXTENSION,
  type TaskState,
  type TaskStatusUpdate,
} from './tasks/taskCall.js';
export { DEFAULT_TOOL_TIMEOUT_MS } from './toolCall.js';
export type {
  ApprovalMode,
  ApprovalPolicy,
  CallOptions,
  HttpOAuthConfig,
  HttpServerConfig,
  ProtocolMode,
  ServerConfig,
  StdioServerConfig,
  ToolEntry,
  ToolRouter,
} from './types.js';
