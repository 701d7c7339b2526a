import { createListenBus, type ListenBus, type Logger, type RequestContext, silentLogger } from '@mcpkit/protocol-core';
import type { McpRequestContext, ServerEventBus } from '@modelcontextprotocol/server';
import { KNOWLEDGE_GRAPH_URI } from './resources/knowledgeGraph.js';
import type { GraphStore } from './store/types.js';
import { requestSubject, type UserGraphs, userGraphKey } from './userGraphs.js';

export interface GraphListenBus extends ListenBus {
  /** Stops announcing the store's changes (at shutdown). */
  close(): void;
}

/**
 * The process's feed for 2026 `subscriptions/listen` streams over HTTP: every change of `store` (this
 * process's writes, and other processes' while a stream is open: the store is watched only then) is
 * published as `notifications/resources/updated` for `memory://knowledge-graph`. Hand `bus` to the runner.
 */
export function listenToGraph(store: GraphStore, logger: Logger = silentLogger): GraphListenBus {
  const listen = createListenBus({ whileListened: () => store.watch(), logger });
  const stop = store.onChange(() => listen.notify.resourceUpdated(KNOWLEDGE_GRAPH_URI));
  return { ...listen, close: stop };
}

export interface UserGraphsListen {
  /** Hand to the runner as `ServerApp.listenBus`: the bus of the listening request's user. */
  busFor(context: McpRequestContext): ServerEventBus;
  /** How many users have a stream open now. */
  listeningUsers(): number;
  /** Stops every user's feed and lets their graphs go (at shutdown, before `users.close()`). */
  close(): void;
}

/** The bus of a listener without a user (no token, or a client credentials one): it never hears anything. */
const SILENT_BUS: ServerEventBus = { publish: () => {}, subscribe: () => () => {} };

/**
 * `--graph-per-user`: the feed for 2026 `subscriptions/listen` streams over HTTP, one per user. A stream hears the
 * changes of its own user's graph only (the subject of the listen request's token, as for every call); while a
 * user has a stream open, that user's graph is held open and watched for other processes' writes.
 */
export function listenToUserGraphs(users: UserGraphs, logger: Logger = silentLogger): UserGraphsListen {
  const buses = new Map<string, ListenBus>();
  const feeds = new Set<() => void>();

  /** Holds `extra`'s graph and forwards its changes to `listen` until the returned stop is called. */
  function follow(extra: Pick<McpRequestContext, 'authInfo'>, listen: ListenBus, key: string): () => void {
    let stopped = false;
    let unfollow: (() => void) | undefined;
    users.hold(withAuth(extra)).then(
      ({ store, release }) => {
        if (stopped) return release();
        const unwatch = store.watch();
        const off = store.onChange(() => listen.notify.resourceUpdated(KNOWLEDGE_GRAPH_URI));
        unfollow = () => {
          off();
          unwatch();
          release();
        };
      },
      (error: unknown) => logger.warn(`a listener's graph could not be opened: ${error instanceof Error ? error.message : String(error)}`),
    );
    const stop = () => {
      if (stopped) return;
      stopped = true;
      feeds.delete(stop);
      unfollow?.();
      if (buses.get(key) === listen) buses.delete(key);
    };
    feeds.add(stop);
    return stop;
  }

  return {
    busFor(context) {
      let key: string;
      try {
        key = userGraphKey(requestSubject(withAuth(context)));
      } catch (error) {
        logger.debug(`subscriptions/listen without a user hears nothing: ${(error as Error).message}`);
        return SILENT_BUS;
      }
      let listen = buses.get(key);
      if (!listen) {
        const user = { ...(context.authInfo ? { authInfo: context.authInfo } : {}) };
        const created: ListenBus = createListenBus({ whileListened: () => follow(user, created, key), logger });
        buses.set(key, created);
        listen = created;
      }
      return listen.bus;
    },
    listeningUsers: () => buses.size,
    close() {
      for (const stop of [...feeds]) stop();
      buses.clear();
    },
  };
}

/** A listen context's token in the shape `userGraphs` reads (a handler's `http.authInfo`). */
function withAuth({ authInfo }: Pick<McpRequestContext, 'authInfo'>): Pick<RequestContext, 'http'> {
  return authInfo ? { http: { authInfo } } : {};
}
