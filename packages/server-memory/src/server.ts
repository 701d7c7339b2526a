import { createMcpServer, enableSubscriptions, type Logger, registerResources, registerTools, silentLogger } from '@mcpkit/protocol-core';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { afterLoad } from './awaitLoad.js';
import type { MemoryContext } from './context.js';
import { KNOWLEDGE_GRAPH_URI, resources } from './resources/knowledgeGraph.js';
import type { GraphStore } from './store/types.js';
import { tools } from './tools/index.js';
import { DEFAULT_LIMITS, type Limits } from './tools/limits.js';
import { VERSION } from './version.js';

export interface MemoryServerOptions {
  /** Where the graph lives; shared by every session of the process (create it once). */
  store: GraphStore;
  /** Caps on one call's input; defaults: names 1000 chars, observations 10000 chars, 1000 items per call. */
  limits?: Partial<Limits>;
  logger?: Logger;
}

/**
 * A memory server for one client session over a shared `store`. The session keeps its own
 * resource subscriptions and hears every change of the store (its own calls, other sessions',
 * other processes'), sending `notifications/resources/updated` to its client when subscribed.
 */
export function createMemoryServer({ store, limits, logger = silentLogger }: MemoryServerOptions): McpServer {
  const server = createMcpServer({ name: 'memory-server', version: VERSION, title: 'Knowledge Graph Memory', logger });
  const ctx: MemoryContext = { store, limits: { ...DEFAULT_LIMITS, ...limits } };
  // A call that comes while the graph loads waits for it, with progress and cancellation (`awaitLoad.ts`).
  registerTools(server, ctx, tools.map(afterLoad), { logger });
  registerResources(server, ctx, resources);

  // The store is watched for other processes' writes only while this session is subscribed.
  let unwatch: (() => void) | undefined;
  const subscriptions = enableSubscriptions(server, {
    onSubscribe: (uri) => {
      if (uri === KNOWLEDGE_GRAPH_URI) unwatch ??= store.watch();
    },
    onUnsubscribe: (uri) => {
      if (uri !== KNOWLEDGE_GRAPH_URI) return;
      unwatch?.();
      unwatch = undefined;
    },
    logger,
  });
  const stopListening = store.onChange(() => subscriptions.notifyUpdated(KNOWLEDGE_GRAPH_URI));
  const previousOnClose = server.server.onclose;
  server.server.onclose = () => {
    previousOnClose?.();
    stopListening();
  };
  return server;
}

export type { MemoryContext } from './context.js';
export type {
  Entity,
  EntitySummary,
  GraphPage,
  KnowledgeGraph,
  ObservationAddition,
  ObservationDeletion,
  ObservationResult,
  PageRequest,
  Relation,
} from './graph.js';
export { defaultMemoryPath, migrateLegacyFile, platformDataDir, type ResolvedMemoryPath, resolveMemoryPath } from './paths.js';
export { KNOWLEDGE_GRAPH_URI } from './resources/knowledgeGraph.js';
export { type FileStoreOptions, ForeignFileError, openFileStore } from './store/fileStore.js';
export { createMemoryStore } from './store/memoryStore.js';
export type { GraphChange, GraphStore, LoadProgress, ReadyOptions } from './store/types.js';
export { DEFAULT_LIMITS, type Limits } from './tools/limits.js';
export { VERSION };
