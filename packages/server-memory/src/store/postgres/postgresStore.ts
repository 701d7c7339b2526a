/**
 * A `GraphStore` on PostgreSQL: many processes (and machines) share one database, each graph a
 * `graph` key on every row. Each call is one transaction on a pooled connection; writes are
 * durable when the transaction commits. The schema is created or migrated at start (`schema.ts`),
 * in the background: with the database down the server still starts, each call fails with a clear
 * error, and the next call after the database is back migrates (if needed) and succeeds.
 */
import { type Logger, silentLogger, ToolError } from '@mcpkit/protocol-core';
import pg from 'pg';
import type { GraphChange, GraphStore } from '../types.js';
import { checkGraphName, DEFAULT_GRAPH } from './graphName.js';
import { openNodes, readGraph, searchNodes } from './reads.js';
import { passwordRedactor, redactUrl } from './redact.js';
import { migrate } from './schema.js';
import * as writes from './writes.js';

export interface PostgresStoreOptions {
  /** `postgres://user:password@host:port/database?sslmode=…`; its password is never logged. */
  url: string;
  /** Which graph of the database this store reads and writes; default `default`. */
  graph?: string;
  /** Most connections the pool opens; default 10. */
  poolSize?: number;
  /** How long a call waits for a connection before it fails; default 10 s. */
  connectTimeoutMs?: number;
  logger?: Logger;
}

/** Opens a store on the database at `url` (no connection is made before the first need). */
export function openPostgresStore({
  url,
  graph = DEFAULT_GRAPH,
  poolSize = 10,
  connectTimeoutMs = 10_000,
  logger = silentLogger,
}: PostgresStoreOptions): GraphStore {
  const bad = checkGraphName(graph);
  if (bad) throw new Error(bad);
  const redact = passwordRedactor(url);
  const location = `${redactUrl(url)} (graph ${JSON.stringify(graph)})`;
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    connectionTimeoutMillis: connectTimeoutMs,
    application_name: 'mcp-server-memory',
  });
  // An idle connection that breaks (database restarted) must not crash the process; the pool replaces it.
  pool.on('error', (error) => logger.warn(`database connection lost: ${redact(error.message)}`));
  const listeners = new Set<(change: GraphChange) => void>();
  let closed = false;
  let schema: Promise<void> | undefined;

  /** A tool-facing error for a database failure: what failed, redacted, and that nothing was changed. */
  const failure = (error: unknown): Error => {
    if (error instanceof ToolError) return error;
    const message = redact(error instanceof Error ? error.message || String((error as { code?: string }).code ?? error) : String(error));
    logger.warn(`database call failed: ${message}`);
    return new ToolError(`The memory database failed: ${message}. Nothing was changed; try again once it is reachable.`, { cause: error });
  };

  const ensureSchema = (): Promise<void> => {
    schema ??= (async () => {
      const client = await pool.connect();
      let lost: Error | undefined;
      const onLost = (error: Error) => {
        lost = error;
      };
      client.on('error', onLost);
      try {
        const { from, to } = await migrate(client);
        if (from !== to) logger.info(`memory schema migrated from version ${from} to ${to} in ${location}`);
      } catch (error) {
        lost ??= error as Error; // the connection may be mid-transaction: never reuse it
        throw error;
      } finally {
        client.off('error', onLost);
        client.release(lost);
      }
    })().catch((error: unknown) => {
      schema = undefined; // the next call tries again
      throw error;
    });
    return schema;
  };

  const transaction = async <T>(readOnly: boolean, run: (db: pg.PoolClient) => Promise<T>): Promise<T> => {
    if (closed) throw new ToolError('the memory store is closed');
    let client: pg.PoolClient | undefined;
    // A connection that breaks while checked out emits `error` (the pool listens only to idle ones): the query fails instead.
    let lost: Error | undefined;
    const onLost = (error: Error) => {
      lost = error;
    };
    try {
      await ensureSchema();
      client = await pool.connect();
      client.on('error', onLost);
      await client.query(readOnly ? 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY' : 'BEGIN');
      const value = await run(client);
      await client.query('COMMIT');
      client.off('error', onLost);
      client.release(lost);
      return value;
    } catch (error) {
      if (client) {
        // A failed ROLLBACK means the connection is broken: drop it from the pool.
        const broken =
          lost ??
          (await client.query('ROLLBACK').then(
            () => undefined,
            (e: unknown) => e as Error,
          ));
        client.off('error', onLost);
        client.release(broken);
      }
      throw failure(error);
    }
  };

  const write = async <T>(run: (db: pg.PoolClient) => Promise<writes.Written<T>>): Promise<T> => {
    const { value, changed } = await transaction(false, run);
    if (changed) for (const l of listeners) l({ source: 'local' });
    return value;
  };

  ensureSchema().catch((error: unknown) =>
    logger.warn(`cannot prepare ${location} yet: ${redact(String((error as Error)?.message ?? error))}`),
  );

  return {
    location,
    createEntities: (entities) => write((db) => writes.createEntities(db, graph, entities)),
    createRelations: (relations) => write((db) => writes.createRelations(db, graph, relations)),
    addObservations: (additions) => write((db) => writes.addObservations(db, graph, additions)),
    deleteEntities: (names) => write((db) => writes.deleteEntities(db, graph, names)),
    deleteObservations: (deletions) => write((db) => writes.deleteObservations(db, graph, deletions)),
    deleteRelations: (relations) => write((db) => writes.deleteRelations(db, graph, relations)),
    readGraph: (page) => transaction(true, (db) => readGraph(db, graph, page)),
    searchNodes: (query, page) => transaction(true, (db) => searchNodes(db, graph, query, page)),
    openNodes: (names, page) => transaction(true, (db) => openNodes(db, graph, names, page)),
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    // Changes by other processes are not pushed yet (LISTEN/NOTIFY is a later step); every call reads the database.
    watch: () => () => {},
    async close() {
      if (closed) return;
      closed = true;
      listeners.clear();
      await schema?.catch(() => {});
      await pool.end();
    },
  };
}
