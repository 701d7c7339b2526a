/**
 * @mcpkit/agent: an LLM client enhanced with the tools of MCP servers.
 * Any new export added here becomes public API. Named exports only.
 */
export { type Agent, type AgentOptions, collectRun, createAgent, type RunResult } from './agent.js';
export { type ApprovalDecision, type ApprovalGate, type ApprovalOptions, createApprovalGate } from './approval.js';
export { createPipeline, type EnhancedLLMClient, type EnhancedRun, type EnhanceOptions, enhanceLLMClient } from './enhancer.js';
export { errorMessage, isMcpError, McpError, type McpErrorKind } from './errors.js';
export type { AgentHost, ApprovalRequest, SamplingApprovalRequest } from './host.js';
export * from './llm/index.js';
export * from './mcp/index.js';
export type {
  AgentEvent,
  PipelineSettings,
  ReplyState,
  ToolCallContext,
  ToolMode,
  ToolOutcome,
  ToolOutcomeStatus,
} from './pipeline/context.js';
export { ToolCallPipeline, type ToolCallProcessor } from './pipeline/pipeline.js';
export { capText, DEFAULT_MAX_RESULT_CHARS, toolResultText } from './results.js';
export { createSampleHandler, type SampleHandler, samplingMessages } from './sampling.js';
export { type AgentSession, createSession } from './session.js';
export * from './textmode/index.js';
export type { ChatEvent, ChatRequest, FinishReason, JsonSchema, LLMClient, Message, ToolCall, ToolSpec, Usage } from './types.js';
export { VERSION } from './version.js';
