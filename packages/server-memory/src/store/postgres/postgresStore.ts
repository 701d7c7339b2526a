/**
 * A `GraphStore` on PostgreSQL: many processes (and machines) share one database, each graph a
 * `graph` key on every row. Each call is one transaction on a pooled connection; writes are
 * durable when the transaction commits. The schema is created or migrated at start (`schema.ts`),
 * in the background: with the database down the server still starts, each call fails with a clear
 * error, and the next call after the database is back migrates (if needed) and succeeds. No call
 * waits on the database longer than `timeoutMs` (`statement_timeout` on the server, pg's
 * `query_timeout` for a database that stops answering). Each write that changed the graph NOTIFYs
 * the graph's channel in its transaction; `watch()` LISTENs for other processes' (`listener.ts`).
 */
import { randomUUID } from 'node:crypto';
import { type Logger, silentLogger, ToolError } from '@mcpkit/protocol-core';
import pg from 'pg';
import type { GraphChange, GraphStore } from '../types.js';
import { checkGraphName, DEFAULT_GRAPH } from './graphName.js';
import { createGraphListener, encodeNotice, graphChannel } from './listener.js';
import { openNodes, readGraph, searchNodes } from './reads.js';
import { passwordRedactor, redactUrl } from './redact.js';
import { migrate } from './schema.js';
import { createTrigramSampler, indexPattern, sampleTrigrams } from './searchPattern.js';
import * as writes from './writes.js';


/**
 * A write transaction that is durable once acknowledged: on a database (or a role) set to
 * `synchronous_commit = off`, a crash loses the last commits it already confirmed, so such a write
 * waits for its commit to reach the disk (`on`, for this transaction only). Any other setting
 * (`on`, `local`, `remote_write`, `remote_apply`) is kept. One simple query: no extra round trip.
 */
const BEGIN_DURABLE =
  "BEGIN; SELECT set_config('synchronous_commit', 'on', true) WHERE current_setting('synchronous_commit') = 'off'";

export interface PostgresStoreOptions {
  /** `postgres://user:password@host:port/database?sslmode=…`; its password is never logged. */
  url: string;
  /** Which graph of the database this store reads and writes; default `default`. */
  graph?: string;
  /** Most connections the pool opens; default 10. */
  poolSize?: number;
  /** How long one statement may take (`statement_timeout`, and pg's `query_timeout` just after); default 10 s. */
  timeoutMs?: number;
  /** How long a call waits for a connection before it fails; default `timeoutMs`. */
  connectTimeoutMs?: number;
  logger?: Logger;
}

/** `10s`, `1.5s` or `250ms`, for error texts. */
const formatMs = (ms: number): string => (ms >= 1000 ? `${ms / 1000}s` : `${ms}ms`);

/** pg's own time-outs, and PostgreSQL's cancellation by `statement_timeout` (SQLSTATE 57014). */
function isTimeout(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return (
    code === '57014' ||
    (typeof message === 'string' && /^Query read timeout$|timeout exceeded when trying to connect|due to connection timeout/.test(message))
  );
}

/** Opens a store on the database at `url` (no connection is made before the first need). */
export function openPostgresStore({
  url,
  graph = DEFAULT_GRAPH,
  poolSize = 10,
  timeoutMs = 10_000,
  connectTimeoutMs = timeoutMs,
  logger = silentLogger,
}: PostgresStoreOptions): GraphStore {
  const bad = checkGraphName(graph);
  if (bad) throw new Error(bad);
  const redact = passwordRedactor(url);
  const location = `${redactUrl(url)} (graph ${JSON.stringify(graph)})`;
  const connection = { connectionString: url, connectionTimeoutMillis: connectTimeoutMs, application_name: 'mcp-server-memory' };
  const pool = new pg.Pool({
    ...connection,
    max: poolSize,
    // The server cancels a statement after `timeoutMs` (its locks are released at once); pg gives up a little later
    // when the server does not answer at all (a hung host, a stalled network), and the connection is then dropped.
    statement_timeout: timeoutMs,
    query_timeout: timeoutMs + 250,
    // A transaction left open by a process that vanished (its locks) ends after this long.
    idle_in_transaction_session_timeout: timeoutMs,
  });
  // An idle connection that breaks (database restarted) must not crash the process; the pool replaces it.
  pool.on('error', (error) => logger.warn(`database connection lost: ${redact(error.message)}`));
  const listeners = new Set<(change: GraphChange) => void>();
  const origin = randomUUID();
  const channel = graphChannel(graph);
  let seq = 0;
  const listener = createGraphListener({
    connection,
    graph,
    origin,
    logger,
    redact,
    onChange: () => {
      for (const l of listeners) l({ source: 'external' });
    },
  });
  let closed = false;
  let schema: Promise<void> | undefined;

  /**
   * A tool-facing error for a database failure: what failed, redacted, and whether anything changed (unknown only
   * when a write's COMMIT got no answer).
   */
  const failure = (error: unknown, commitUnanswered: boolean): Error => {
    if (error instanceof ToolError) return error;
    const message = redact(error instanceof Error ? error.message || String((error as { code?: string }).code ?? error) : String(error));
    logger.warn(`database call failed: ${message}`);
    const what = isTimeout(error)
      ? `The memory database did not answer within ${formatMs(timeoutMs)} (${message})`
      : `The memory database failed: ${message}`;
    const outcome = commitUnanswered
      ? 'The change may or may not have been saved; read the graph to check before trying again.'
      : 'Nothing was changed; try again once it is reachable.';
    return new ToolError(`${what}. ${outcome}`, { cause: error });
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
    let committing = false;
    try {
      await ensureSchema();
      client = await pool.connect();
      client.on('error', onLost);
      await client.query(readOnly ? 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY' : BEGIN_DURABLE);
      const value = await run(client);
      committing = true;
      await client.query('COMMIT');
      client.off('error', onLost);
      client.release(lost);
      return value;
    } catch (error) {
      if (client) {
        // A query pg gave up on is still running on that connection, and a failed ROLLBACK means it is broken:
        // either way, drop it from the pool (the server rolls back when the connection closes).
        if (!lost && error instanceof Error && error.message === 'Query read timeout') lost = error;
        const broken =
          lost ??
          (await client.query('ROLLBACK').then(
            () => undefined,
            (e: unknown) => e as Error,
          ));
        client.off('error', onLost);
        client.release(broken);
      }
      // A COMMIT that failed with an answer (a constraint, a serialization failure) rolled back; one without did not say.
      const unanswered = committing && !readOnly && (lost !== undefined || isTimeout(error) || !(error instanceof pg.DatabaseError));
      throw failure(error, unanswered);
    }
  };

  const write = async <T>(run: (db: pg.PoolClient) => Promise<writes.Written<T>>): Promise<T> => {
    const { value, changed } = await transaction(false, async (db) => {
      const written = await run(db);
      // Delivered to the other processes' listeners only if this transaction commits.
      if (written.changed)
        await db.query({
          name: 'memory_notify',
          text: 'SELECT pg_notify($1, $2)',
          values: [channel, encodeNotice({ graph, origin, seq: ++seq })],
        });
      return written;
    });
    if (changed) for (const l of listeners) l({ source: 'local' });
    return value;
  };

  // The graph's common trigrams, so a search asks the index for the query's rarest word (`searchPattern.ts`).
  const trigrams = createTrigramSampler(() => transaction(true, (db) => sampleTrigrams(db, graph)));

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
    searchNodes: (query, page) => {
      const pattern = indexPattern(query, trigrams.current());
      return transaction(true, (db) => searchNodes(db, graph, query, page, pattern));
    },
    openNodes: (names, page) => transaction(true, (db) => openNodes(db, graph, names, page)),
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    // Every call reads the database; this only makes other processes' changes heard while a client is subscribed.
    watch: () => (closed ? () => {} : listener.watch()),
    async close() {
      if (closed) return;
      closed = true;
      listeners.clear();
      await listener.close();
      await schema?.catch(() => {});
      await pool.end();
    },
  };
}
