/**
 * @mcpkit/agent: an LLM client enhanced with the tools of MCP servers.
 * Any new export added here becomes public API. Named exports only.
 */
export { type Agent, type AgentOptions, collectRun, createAgent, type RunResult } from './agent.js';
export { type ApprovalDecision, type ApprovalGate, type ApprovalOptions, createApprovalGate } from './approval.js';
export {
  type AgentOAuthProvider,
  CONFIG_DIR_ENV,
  canonicalServerUrl,
  createOAuthProvider,
  createTokenStore,
  DEFAULT_LOGIN_TIMEOUT_MS,
  defaultConfigDir,
  hasStaticCredential,
  isLoginRequired,
  type LoginOptions,
  LoginRequiredError,
  type LoginResult,
  type LogoutOptions,
  type LogoutResult,
  login,
  loginRequiredMessage,
  logout,
  type OAuthProviderOptions,
  type OpenUrl,
  providerOptionsFor,
  type ScopeChallenge,
  type ServerAuthState,
  type StoredServerAuth,
  stepUp,
  storedAuthState,
  type TokenStore,
  type TokenStoreKey,
  usesOAuth,
} from './auth/index.js';
export { type EnhancedLLMClient, type EnhancedRun, type EnhanceOptions, enhanceLLMClient } from './enhancer.js';
export { errorMessage, isMcpError, McpError, type McpErrorKind } from './errors.js';
export type { AgentHost, ApprovalRequest, SamplingApprovalRequest } from './host.js';
export { createOpenAIClient, type OpenAIClientOptions, sanitizeToolSchema } from './llm/index.js';
export {
  type ApprovalMode,
  type ApprovalPolicy,
  AUTO_PROBE_TIMEOUT_MS,
  type CallOptions,
  type CallToolResult,
  createRegistry,
  createToolNameTable,
  DEFAULT_CONNECT_TIMEOUT_MS,
  DEFAULT_POLL_INTERVAL_MS,
  DEFAULT_PROTOCOL_MODE,
  DEFAULT_TOOL_TIMEOUT_MS,
  type ElicitRequest,
  type ElicitResult,
  type HttpOAuthConfig,
  type HttpServerConfig,
  loadServersConfig,
  MAX_POLL_INTERVAL_MS,
  MAX_TOOL_NAME_LENGTH,
  type McpRegistry,
  MIN_POLL_INTERVAL_MS,
  namespaceToolName,
  type ParseConfigOptions,
  PROTOCOL_MODES,
  type PrimitiveSchemaDefinition,
  type ProtocolMode,
  parseServersConfig,
  type RegistryOAuthOptions,
  type RegistryOptions,
  type ServerConfig,
  type ServerReport,
  type ServerStatus,
  type StdioServerConfig,
  systemClock,
  TASKS_EXTENSION,
  type TaskClock,
  type TaskState,
  type TaskStatusUpdate,
  type ToolAnnotations,
  type ToolEntry,
  type ToolNameTable,
  type ToolRouter,
} from './mcp/index.js';
export type { AgentEvent, PipelineSettings, ReplyState, RunControl, ToolMode, ToolOutcome, ToolOutcomeStatus } from './pipeline/context.js';
export { runToolLoop } from './pipeline/loop.js';
export { capText, DEFAULT_MAX_RESULT_CHARS, toolResultText } from './results.js';
export { createSampleHandler, type SampleHandler, samplingMessages } from './sampling.js';
export { type AgentSession, createSession } from './session.js';
export { SKILL_TOOL_NAME, type SkillSummary } from './skills/tool.js';
export {
  createTextModeParser,
  type ParsedCall,
  renderToolCatalogue,
  type TextModeParser,
  type TextModeParserOptions,
  toTextModeMessages,
} from './textmode/index.js';
export { CHARS_PER_TOKEN, estimateTokens, estimateToolTokens } from './tools/estimate.js';
export {
  createToolOffer,
  DEFAULT_CONTEXT_WINDOW_TOKENS,
  DEFAULT_DEFER_RATIO,
  DEFAULT_SEARCH_RESULTS,
  deferThreshold,
  type OfferedTools,
  TOOL_SEARCH_NAME,
  type ToolOffer,
  type ToolSearchOptions,
  type ToolSearchResult,
} from './tools/offer.js';
export { searchTools } from './tools/search.js';
export type { ChatEvent, ChatRequest, FinishReason, JsonSchema, LLMClient, Message, ToolCall, ToolSpec, Usage } from './types.js';
export { VERSION } from './version.js';
