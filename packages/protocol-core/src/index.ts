// Any new export added here becomes public API. Use named exports, not wildcards.

export { describeIssues, tooLargeMessage } from './answerCap.js';
export {
  type ConfigOf,
  type ConfigSource,
  configSource,
  defineOptions,
  formatHelp,
  type OptionSpec,
  type OptionSpecs,
  parse,
  parseConfig,
} from './config.js';
export {
  type Annotations,
  type AnyPromptDefinition,
  type AnyToolDefinition,
  type CacheableMethod,
  type CacheHints,
  createMcpServer,
  definePrompt,
  defineResource,
  defineTool,
  type PromptDefinition,
  type RegisterToolsOptions,
  type RequestContext,
  type ResourceDefinition,
  registerPrompts,
  registerResources,
  registerTools,
  type ServerInfo,
  STATIC_CACHE_HINTS,
  STATIC_LIST_TTL_MS,
  type ToolDefinition,
} from './define.js';
export { ConfigError, ErrorCode, errorMessage, ToolError } from './errors.js';
export { createLogger, LOG_FORMATS, LOG_LEVELS, type LogFormat, type Logger, type LogLevel, sendLog, silentLogger } from './logger.js';
export { type ToolSchemas, toolSchemas } from './objectSchema.js';
export { createProgressReporter, noProgressReporter, type ProgressOptions, type ProgressReporter } from './progress.js';
export { errorResult, structuredResult, type ToolResult, textResult } from './results.js';
export {
  createSessionEventStore,
  markResumable,
  type SessionEventStore,
  type SessionEventStoreOptions,
} from './resumable.js';
export { type CliApp, type RunnerConfig, runCli, runnerOptions } from './runner/cli.js';
export type { HttpOptions, RunningHttpServer } from './runner/http/options.js';
export { type RunningWsServer, serveWs, type WsOptions } from './runner/serveWs.js';
export { type RunningStdioServer, serveStdio } from './runner/stdio.js';
export type { Readiness, RunningServer, ServerApp } from './runner/types.js';
export {
  CLIENT_MESSAGE_LIMIT_BYTES,
  fitCount,
  formatBytes,
  formatSize,
  jsonBytes,
  jsonBytesBound,
  MAX_RESULT_BYTES,
  sizeOver,
} from './size.js';
export {
  markStatelessRequest,
  STATELESS_SUBSCRIPTIONS,
  servesStatelessRequest,
  statelessCapabilities,
  statelessSession,
} from './stateless.js';
export {
  createListenBus,
  enableSubscriptions,
  holdsListenStreams,
  type ListenBus,
  type ListenBusOptions,
  type SubscriptionOptions,
  type Subscriptions,
} from './subscriptions.js';
export { type Telemetry, telemetryOff, timeStoreCalls } from './telemetry/index.js';
export { currentRequest, inRequest, type RequestScope } from './telemetry/requestScope.js';
