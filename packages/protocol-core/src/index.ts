// Any new export added here becomes public API. Use named exports, not wildcards.

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
  type RequestExtra,
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
export type { JsonSchemaObject, ToolListing } from './lowLevelTools.js';
export { createProgressReporter, noProgressReporter, type ProgressOptions, type ProgressReporter } from './progress.js';
export { type RawRequestHandler, setRawRequestHandler } from './rawHandlers.js';
export { describeIssues, tooLargeMessage } from './requestGuard.js';
export { errorResult, structuredResult, type ToolResult, textResult } from './results.js';
export {
  type ClosableStreamsTransport,
  type CloseRequestStreamOptions,
  closeRequestStream,
  createSessionEventStore,
  markResumable,
  type SessionEventStore,
  type SessionEventStoreOptions,
} from './resumable.js';
export { type CliApp, type RunnerConfig, runCli, runnerOptions } from './runner/cli.js';
export { type HttpOptions, type RunningHttpServer, serveHttp } from './runner/serveHttp.js';
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
export {
  createTaskLayer,
  createTaskStore,
  isTerminal,
  type RunningTask,
  TASKS_CAPABILITY,
  type Task,
  type TaskLayer,
  type TaskLayerOptions,
  type TaskStatus,
  type TaskStore,
  type TaskStoreOptions,
  type TaskToolDefinition,
  taskRequiredText,
} from './tasks/index.js';
export { type Telemetry, telemetryOff, timeStoreCalls } from './telemetry/index.js';
export { currentRequest, inRequest, type RequestScope } from './telemetry/requestScope.js';
