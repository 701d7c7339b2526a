/**
 * A `GraphStore` on PostgreSQL: many processes (and machines) share one database, each graph a `graph` key on
 * every row. The connections are the process's (`database.ts`: one pool and one LISTEN connection for all its
 * graphs); a store is one graph's calls on them. After a write that changed the graph commits, the store NOTIFYs the
 * graph's channel (`notifier.ts`); `watch()` follows the channel on the process's LISTEN connection for other
 * processes' (`listener.ts`).
 */
import { randomUUID } from 'node:crypto';
import { ToolError } from '@mcpkit/protocol-core';
import type pg from 'pg';
import type { GraphChange, GraphStore } from '../types.js';
import { openPostgresDatabase, type PostgresDatabase, type PostgresDatabaseOptions } from './database.js';
import { checkGraphName, DEFAULT_GRAPH } from './graphName.js';
import { encodeNotice, type Following, graphChannel } from './listener.js';
import { createNotifier } from './notifier.js';
import { openNodes, readGraph, searchNodes } from './reads.js';
import { createTrigramSampler, indexPattern, sampleTrigrams } from './searchPattern.js';
import * as writes from './writes.js';

export interface PostgresStoreOptions extends PostgresDatabaseOptions {
  /** Which graph of the database this store reads and writes; default `default`. */
  graph?: string;
}

/**
 * A store on one graph of `db`, the process's connections; closing it leaves them open (`db.close()` closes them).
 * Throws when `graph` is no graph name.
 */
export function openPostgresGraph(db: PostgresDatabase, graph: string = DEFAULT_GRAPH): GraphStore {
  const bad = checkGraphName(graph);
  if (bad) throw new Error(bad);
  const location = `${db.location} (graph ${JSON.stringify(graph)})`;
  const listeners = new Set<(change: GraphChange) => void>();
  // This store's id in its notices: its own are skipped by the listener (it tells its listeners itself, at once).
  const origin = randomUUID();
  const channel = graphChannel(graph);
  let seq = 0;
  let closed = false;
  let handles = 0;
  let following: Following | undefined;

  const transaction = <T>(mode: 'read' | 'write', run: (client: pg.PoolClient) => Promise<T>): Promise<T> =>
    closed ? Promise.reject(new ToolError('the memory store is closed')) : db.transaction(mode, run);

  // Other processes hear of a committed change by a notice sent after it (never inside the write: `notifier.ts`).
  const notifier = createNotifier(
    () => db.notify(channel, encodeNotice({ graph, origin, seq: ++seq })),
    (error) => db.logger.warn(`change notice for ${location} not sent: ${db.redact(String((error as Error)?.message ?? error))}`),
  );

  /**
   * A write: one statement (`writes.ts`) that waits for its commit to reach the disk; if it changed the graph, this
   * process's listeners are told at once and the other processes' by the notice that follows.
   */
  const write = async <T>(run: (client: pg.PoolClient) => Promise<writes.Written<T>>): Promise<T> => {
    const { value, changed } = await transaction('write', run);
    if (changed) {
      notifier.changed();
      for (const l of listeners) l({ source: 'local' });
    }
    return value;
  };

  // The graph's common trigrams, so a search asks the index for the query's rarest word (`searchPattern.ts`).
  const trigrams = createTrigramSampler(() => transaction('read', (client) => sampleTrigrams(client, graph)));

  /** Follows the graph's channel while at least one `watch()` handle is held. */
  const watch = (): (() => void) => {
    if (closed) return () => {};
    handles++;
    following ??= db.listener.follow(graph, origin, () => {
      for (const l of listeners) l({ source: 'external' });
    });
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (--handles > 0) return;
      following?.stop();
      following = undefined;
    };
  };

  return {
    location,
    createEntities: (entities) => write((client) => writes.createEntities(client, graph, entities)),
    createRelations: (relations) => write((client) => writes.createRelations(client, graph, relations)),
    addObservations: (additions) => write((client) => writes.addObservations(client, graph, additions)),
    deleteEntities: (names) => write((client) => writes.deleteEntities(client, graph, names)),
    deleteObservations: (deletions) => write((client) => writes.deleteObservations(client, graph, deletions)),
    deleteRelations: (relations) => write((client) => writes.deleteRelations(client, graph, relations)),
    readGraph: (page) => transaction('read', (client) => readGraph(client, graph, page)),
    searchNodes: (query, page) => {
      const pattern = indexPattern(query, trigrams.current());
      return transaction('read', (client) => searchNodes(client, graph, query, page, pattern));
    },
    openNodes: (names, page) => transaction('read', (client) => openNodes(client, graph, names, page)),
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    // Every call reads the database; this only makes other processes' changes heard while a client is subscribed.
    watch,
    listening: () => following?.listening() ?? Promise.resolve(),
    async close() {
      if (closed) return;
      closed = true;
      listeners.clear();
      handles = 0;
      following?.stop();
      following = undefined;
      await notifier.settled();
    },
  };
}

/** Opens a store on one graph of the database at `url`, with connections of its own (none made before the first need). */
export function openPostgresStore({
  graph = DEFAULT_GRAPH,
  ...options
}: PostgresStoreOptions): GraphStore & Pick<PostgresDatabase, 'ping'> {
  const bad = checkGraphName(graph);
  if (bad) throw new Error(bad);
  const db = openPostgresDatabase(options);
  const store = openPostgresGraph(db, graph);
  return {
    ...store,
    ping: db.ping,
    async close() {
      await store.close();
      await db.close();
    },
  };
}
