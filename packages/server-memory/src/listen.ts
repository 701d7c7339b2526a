import { createListenBus, type ListenBus, type Logger, silentLogger } from '@mcpkit/protocol-core';
import { KNOWLEDGE_GRAPH_URI } from './resources/knowledgeGraph.js';
import type { GraphStore } from './store/types.js';

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
