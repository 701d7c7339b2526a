import {
  createMcpServer,
  enableSubscriptions,
  holdsListenStreams,
  type Logger,
  registerResources,
  registerTools,
  silentLogger,
} from '@mcpkit/protocol-core';
import { serverSkills } from '@mcpkit/protocol-core/skills';
import type { TasksExtension } from '@mcpkit/protocol-core/tasks';
import type { McpRequestContext, McpServer } from '@modelcontextprotocol/server';
import { afterLoad } from './awaitLoad.js';
import type { MemoryContext } from './context.js';
import { NO_SHARED_STORE, onUserGraph, resourceOnUserGraph } from './perUser.js';
import { KNOWLEDGE_GRAPH_URI, resources } from './resources/knowledgeGraph.js';
import type { GraphStore } from './store/types.js';
import { tools } from './tools/index.js';
import { DEFAULT_LIMITS, type Limits } from './tools/limits.js';
import type { UserGraphs } from './userGraphs.js';
import { VERSION } from './version.js';

export interface MemoryServerOptions {
  /** Where the graph lives; shared by every session of the process (create it once). */
  store?: GraphStore;
  /**
   * Instead of `store`: one graph per user (`--graph-per-user`), picked per call by the access token's subject.
   * 2025 subscriptions follow the subscribing user's graph; 2026 listen streams over HTTP are fed by
   * `listenToUserGraphs` (the runner's `listenBus`), each with its own user's graph.
   */
  users?: UserGraphs;
  /** Caps on one call's input; defaults: names 1000 chars, observations 10000 chars, 1000 items per call. */
  limits?: Partial<Limits>;
  logger?: Logger;
  /** What the SDK said of the instance it asked for (`ServerApp.createServer`'s argument), if anything. */
  context?: McpRequestContext;
  /**
   * The process's tasks extension (one for every server of the process, so a task outlives the request that
   * started it): `read_graph` and `search_nodes` then answer a request that declares it with a task. Without it
   * (and for `users`), no tool runs as a task and the extension is not declared.
   */
  tasks?: TasksExtension;
}

/**
 * What a 2026 client may cache (`server/discover` cache hints): the tool and resource lists never change
 * while the process runs (protocol-core's default hints), the graph itself changes with every write.
 */
const CACHE_HINTS = { 'resources/read': { ttlMs: 0, cacheScope: 'private' } } as const;

/** The skills this package ships (`skills/`, next to `dist/` and `src/`), served to 2026-07-28 clients. */
const SKILLS = serverSkills(new URL('../skills/', import.meta.url), { prefix: 'memory' });

/**
 * A memory server for one client session over a shared `store`. A 2025 session keeps its own
 * resource subscriptions (`resources/subscribe`) and hears every change of the store (its own calls,
 * other sessions', other processes'), sending `notifications/resources/updated` when subscribed. A 2026
 * connection over stdio hears them on its `subscriptions/listen` streams (`context` tells it is one: the
 * store is then watched for the whole connection); over HTTP, where an instance lives for one request,
 * streams are fed by the process's `listenToGraph` bus instead.
 */
export function createMemoryServer({ store, users, limits, logger = silentLogger, context, tasks }: MemoryServerOptions): McpServer {
  if (users) return SKILLS.attach(createPerUserServer(users, limits, logger), context);
  if (!store) throw new TypeError('createMemoryServer needs a store or users');
  const server = SKILLS.attach(newMcpServer(logger), context);
  const ctx: MemoryContext = { store, limits: { ...DEFAULT_LIMITS, ...limits } };
  tasks?.attach(server);
  // A call that comes while the graph loads waits for it, with progress and cancellation (`awaitLoad.ts`); as a
  // task, that progress is the task's status message.
  registerTools(server, ctx, tools.map(afterLoad), { logger, ...(tasks ? { tasks } : {}) });
  registerResources(server, ctx, resources);

  // The store is watched for other processes' writes only while this session is subscribed (2025), or for the
  // whole connection when a 2026 client may open a listen stream on it at any time unseen (stdio).
  const unwatchConnection = holdsListenStreams(context) ? store.watch() : undefined;
  let unwatch: (() => void) | undefined;
  const subscriptions = enableSubscriptions(server, {
    // Answered once other processes' changes will be heard (a PostgreSQL store's LISTEN is up).
    onSubscribe: async (uri) => {
      if (uri !== KNOWLEDGE_GRAPH_URI) return;
      unwatch ??= store.watch();
      await store.listening?.();
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
    unwatchConnection?.();
  };
  return server;
}

/** `--graph-per-user`: tools and the graph resource on the caller's graph; a subscription watches the subscriber's graph. */
function createPerUserServer(users: UserGraphs, limits: Partial<Limits> | undefined, logger: Logger): McpServer {
  const server = newMcpServer(logger);
  const ctx: MemoryContext = { store: NO_SHARED_STORE, limits: { ...DEFAULT_LIMITS, ...limits } };
  registerTools(
    server,
    ctx,
    tools.map((tool) => onUserGraph(afterLoad(tool), users)),
    { logger },
  );
  registerResources(
    server,
    ctx,
    resources.map((resource) => resourceOnUserGraph(resource, users)),
  );
  // A session belongs to one user (the runner binds it to the principal that opened it): its subscription
  // holds that user's graph open and watched until unsubscribed or closed.
  let held: { release(): void; stop(): void } | undefined;
  const stopHolding = () => {
    held?.stop();
    held?.release();
    held = undefined;
  };
  const subscriptions = enableSubscriptions(server, {
    onRequest: async ({ method, uri }, extra) => {
      if (method !== 'resources/subscribe' || uri !== KNOWLEDGE_GRAPH_URI || held) return;
      const { store, release } = await users.hold(extra);
      const unwatch = store.watch();
      const stopListening = store.onChange(() => subscriptions.notifyUpdated(KNOWLEDGE_GRAPH_URI));
      held = {
        release,
        stop: () => {
          stopListening();
          unwatch();
        },
      };
      await store.listening?.();
    },
    onUnsubscribe: (uri) => {
      if (uri === KNOWLEDGE_GRAPH_URI) stopHolding();
    },
    logger,
  });
  const previousOnClose = server.server.onclose;
  server.server.onclose = () => {
    previousOnClose?.();
    stopHolding();
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
export { type GraphListenBus, listenToGraph, listenToUserGraphs, type UserGraphsListen } from './listen.js';
export { defaultMemoryPath, migrateLegacyFile, platformDataDir, type ResolvedMemoryPath, resolveMemoryPath } from './paths.js';
export { KNOWLEDGE_GRAPH_URI } from './resources/knowledgeGraph.js';
export { type FileStoreOptions, ForeignFileError, openFileStore } from './store/fileStore.js';
export type { LockClock } from './store/lockClock.js';
export { createMemoryStore } from './store/memoryStore.js';
export type { GraphChange, GraphStore, LoadProgress, ReadyOptions } from './store/types.js';
export { DEFAULT_LIMITS, type Limits } from './tools/limits.js';
export { createUserGraphs, requestSubject, type UserGraphs, userGraphKey } from './userGraphs.js';
export { VERSION };

/** The server as the reference names it, with memory's cache hints. */
function newMcpServer(logger: Logger): McpServer {
  return createMcpServer({ name: 'memory-server', version: VERSION, title: 'Knowledge Graph Memory', logger, cacheHints: CACHE_HINTS });
}
