/**
 * A `GraphStore` on PostgreSQL: many processes (and machines) share one database, each graph a `graph` key on
 * every row. The connections are the process's (`database.ts`: one pool and one LISTEN connection for all its
 * graphs); a store is one graph's calls on them. Each write that changed the graph NOTIFYs the graph's channel in
 * its statement; `watch()` follows the channel on the process's LISTEN connection for other processes' (`listener.ts`).
 */
import { randomUUID } from 'node:crypto';
import { ToolError } from '@mcpkit/protocol-core';
import type pg from 'pg';
import type { GraphChange, GraphStore } from '../types.js';
import { openPostgresDatabase, type PostgresDatabase, type PostgresDatabaseOptions } from './database.js';
import { checkGraphName, DEFAULT_GRAPH } from './graphName.js';
import { encodeNotice, type Following, graphChannel } from './listener.js';
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

  /**
   * A write: one statement (`writes.ts`) that, if it changes the graph, also NOTIFYs the graph's channel (delivered
   * to the other processes' listeners only if it commits) and waits for its commit to reach the disk; this
   * process's listeners are told once it has committed.
   */
  const write = async <T>(run: (client: pg.PoolClient, notice: writes.Notice) => Promise<writes.Written<T>>): Promise<T> => {
    const notice = { channel, payload: encodeNotice({ graph, origin, seq: ++seq }) };
    const { value, changed } = await transaction('write', (client) => run(client, notice));
    if (changed) for (const l of listeners) l({ source: 'local' });
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
    createEntities: (entities) => write((client, notice) => writes.createEntities(client, graph, entities, notice)),
    createRelations: (relations) => write((client, notice) => writes.createRelations(client, graph, relations, notice)),
    addObservations: (additions) => write((client, notice) => writes.addObservations(client, graph, additions, notice)),
    deleteEntities: (names) => write((client, notice) => writes.deleteEntities(client, graph, names, notice)),
    deleteObservations: (deletions) => write((client, notice) => writes.deleteObservations(client, graph, deletions, notice)),
    deleteRelations: (relations) => write((client, notice) => writes.deleteRelations(client, graph, relations, notice)),
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
