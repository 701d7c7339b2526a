/**
 * One process's PostgreSQL connections, whatever number of graphs it serves: one `pg.Pool` (at most `poolSize`
 * connections; the graph is a parameter of every statement) and one connection that LISTENs for other processes'
 * changes on the channels of every graph watched (`listener.ts`). A store per graph (`postgresStore.ts`) runs its calls
 * here, so a server with a graph per user holds `poolSize` + 1 connections at most however many users it has.
 *
 * Each call is one transaction on a pooled connection: a read, a read-only transaction; a write, one statement that
 * commits by itself (one round trip), durable once acknowledged. The schema is created or migrated in the background,
 * once for all graphs: with the database down the server still starts, each call fails with a clear error, and the
 * next call after the database is back migrates (if needed) and succeeds. No call waits on the database longer than
 * `timeoutMs` (`statement_timeout` on the server, pg's `query_timeout` for a database that stops answering).
 */
import { type Logger, type Readiness, silentLogger, ToolError } from '@mcpkit/protocol-core';
import pg from 'pg';
import { type ChangeListener, createChangeListener } from './listener.js';
import { passwordRedactor, redactUrl } from './redact.js';
import { migrate } from './schema.js';

export interface PostgresDatabaseOptions {
  /** `postgres://user:password@host:port/database?sslmode=…`; its password is never logged. */
  url: string;
  /** Most connections the pool opens, for every graph together (the LISTEN connection comes on top); default 10. */
  poolSize?: number;
  /** How long one statement may take (`statement_timeout`, and pg's `query_timeout` just after); default 10 s. */
  timeoutMs?: number;
  /** How long a call waits for a connection before it fails; default `timeoutMs`. */
  connectTimeoutMs?: number;
  logger?: Logger;
}

export interface PostgresDatabase {
  /** The URL without its password, for logs. */
  readonly location: string;
  /** Replaces the URL's password in a text (a driver's error message). */
  redact(text: string): string;
  /**
   * One call on a pooled connection: `read`, a read-only transaction; `write`, one statement that commits on its
   * own (no BEGIN/COMMIT: one round trip), so its answer is its commit's. Failures are `ToolError`s saying what
   * failed (redacted) and whether anything may have changed.
   */
  transaction<T>(mode: 'read' | 'write', run: (db: pg.PoolClient) => Promise<T>): Promise<T>;
  /** The one LISTEN connection of the process, shared by every graph's store. */
  readonly listener: ChangeListener;
  /**
   * Sends one change notice on a pooled connection, in a statement of its own that does not wait for the disk: the
   * NOTIFY lock (one for the whole database) is held for a moment, not for a commit's flush (`notifier.ts`).
   */
  notify(channel: string, payload: string): Promise<void>;
  /** The logger the database reports to. */
  readonly logger: Logger;
  /**
   * For `/readyz`: whether the database answers a `SELECT 1` on the pool now (within its connection and statement
   * time-outs; the runner bounds and caches the probe), with the reason, redacted, when it does not.
   */
  ping(): Promise<Readiness>;
  /** Closes the LISTEN connection and the pool; every call after fails. */
  close(): Promise<void>;
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

/**
 * Whether a failed write statement surely rolled back: the server answered with an error that ends the statement,
 * not the session. A session ended by the server (shutdown or crash, 57P01/57P02; a connection failure, class 08; an
 * internal error, class XX) may have ended after its commit reached the disk.
 */
function rolledBack(error: unknown): boolean {
  return error instanceof pg.DatabaseError && !/^(57P|08|XX)/.test(error.code ?? '');
}

/** Opens the process's connections to the database at `url` (none is made before the first need). */
export function openPostgresDatabase({
  url,
  poolSize = 10,
  timeoutMs = 10_000,
  connectTimeoutMs = timeoutMs,
  logger = silentLogger,
}: PostgresDatabaseOptions): PostgresDatabase {
  const redact = passwordRedactor(url);
  const location = redactUrl(url);
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
  const listener = createChangeListener({ connection, logger, redact });
  let closed = false;
  let schema: Promise<void> | undefined;

  /**
   * A tool-facing error for a database failure: what failed, redacted, and whether anything changed (unknown only
   * when a write got no answer: it may have committed).
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

  const transaction = async <T>(mode: 'read' | 'write', run: (db: pg.PoolClient) => Promise<T>): Promise<T> => {
    if (closed) throw new ToolError('the memory store is closed');
    let client: pg.PoolClient | undefined;
    // A connection that breaks while checked out emits `error` (the pool listens only to idle ones): the query fails instead.
    let lost: Error | undefined;
    const onLost = (error: Error) => {
      lost = error;
    };
    let writeSent = false;
    try {
      await ensureSchema();
      client = await pool.connect();
      client.on('error', onLost);
      if (mode === 'read') await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      else writeSent = true;
      const value = await run(client);
      if (mode === 'read') await client.query('COMMIT');
      client.off('error', onLost);
      client.release(lost);
      return value;
    } catch (error) {
      if (client) {
        // A query pg gave up on is still running on that connection, and a failed ROLLBACK means it is broken:
        // either way, drop it from the pool (the server rolls back when the connection closes). A write's failed
        // statement left no transaction open.
        if (!lost && error instanceof Error && error.message === 'Query read timeout') lost = error;
        const broken =
          lost ??
          (mode === 'write'
            ? undefined
            : await client.query('ROLLBACK').then(
                () => undefined,
                (e: unknown) => e as Error,
              ));
        client.off('error', onLost);
        client.release(broken);
      }
      // A write that failed with an answer (a constraint, its cancellation by `statement_timeout`) rolled back; one
      // without an answer (the connection broke, pg gave up waiting, the server went down) may have committed.
      const unanswered = writeSent && (lost !== undefined || !rolledBack(error));
      throw failure(error, unanswered);
    }
  };

  ensureSchema().catch((error: unknown) =>
    logger.warn(`cannot prepare ${location} yet: ${redact(String((error as Error)?.message ?? error))}`),
  );

  return {
    location,
    redact,
    transaction,
    listener,
    logger,
    async notify(channel, payload) {
      if (closed) throw new Error('the memory store is closed');
      await pool.query({
        name: 'memory_notify',
        text: "SELECT set_config('synchronous_commit', 'off', true), pg_notify($1, $2)",
        values: [channel, payload],
      });
    },
    async ping() {
      if (closed) return { ok: false, reason: 'the memory store is closed' };
      try {
        await pool.query('SELECT 1');
        return { ok: true };
      } catch (error) {
        const message = redact(
          error instanceof Error ? error.message || String((error as { code?: string }).code ?? error) : String(error),
        );
        return { ok: false, reason: `the memory database at ${location} is unreachable: ${message}` };
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      await listener.close();
      await schema?.catch(() => {});
      await pool.end();
    },
  };
}
