/**
 * Thought chains in PostgreSQL (`--storage postgres`), for replicas behind a load balancer: any replica continues any
 * chain. One row per chain (under a hash of its handle: its owner, `last_used` by the app's clock, the next sequence
 * number), one per kept thought and one per branch. Each thought is one transaction that locks its chain's row (two replicas adding to one chain take
 * turns), adds the thought, drops the oldest beyond the history bounds and answers the chain's length and branches, so
 * a chain means exactly what the in-process history means. Expired chains are unknown at once and deleted a bounded
 * number at a time when chains are started; the same keeps the number of chains within `maxChains`.
 */
import { createHash } from 'node:crypto';
import { type Logger, silentLogger, ToolError } from '@mcpkit/protocol-core';
import pg from 'pg';
import { type HistoryLimits, type ThoughtRecord, thoughtBytes } from '../history.js';
import { createSchema } from './postgresSchema.js';
import { type ChainLimits, type ChainStore, DEFAULT_CHAIN_LIMITS, mintHandle, UnknownChainError } from './types.js';

export interface PostgresChainOptions extends Partial<ChainLimits>, HistoryLimits {
  /** `postgres://user:password@host:port/database?sslmode=…`; its password is never logged. */
  url: string;
  /** Most connections the pool opens; default 10. */
  poolSize?: number;
  /** How long one statement or connection attempt may take; default 10 s. */
  timeoutMs?: number;
  /** The clock, in ms (tests drive it). Default `Date.now`. */
  now?: () => number;
  logger?: Logger;
}

/**
 * The key a chain is stored under: a SHA-256 of its handle, so that a copy of the database (a backup, a read-only
 * role) holds no handle that could be used to add to a chain.
 */
const storedKey = (handle: string): string => createHash('sha256').update(handle, 'utf8').digest('base64url');

/** Chains deleted at most by one call (expired ones, or the least recently used beyond `maxChains`). */
const CLEANUP_BATCH = 100;

/** The URL's password (as written and decoded) and the URL itself, out of a text. */
function redactor(url: string): (text: string) => string {
  let secrets: string[] = [];
  try {
    const raw = new URL(url).password;
    if (raw) secrets = [...new Set([raw, decodeURIComponent(raw)])].filter((s) => s.length > 0);
  } catch {}
  return (text) => {
    let out = text.split(url).join('<database URL>');
    for (const secret of secrets.sort((a, b) => b.length - a.length)) out = out.split(secret).join('***');
    return out;
  };
}

export function openPostgresChains({
  url,
  maxHistory,
  maxHistoryBytes,
  ttlMs = DEFAULT_CHAIN_LIMITS.ttlMs,
  maxChains = DEFAULT_CHAIN_LIMITS.maxChains,
  poolSize = 10,
  timeoutMs = 10_000,
  now = Date.now,
  logger = silentLogger,
}: PostgresChainOptions): ChainStore {
  const redact = redactor(url);
  const pool = new pg.Pool({
    connectionString: url,
    application_name: 'mcp-server-sequential-thinking',
    max: poolSize,
    connectionTimeoutMillis: timeoutMs,
    statement_timeout: timeoutMs,
    query_timeout: timeoutMs + 250,
    idle_in_transaction_session_timeout: timeoutMs,
  });
  // An idle connection that breaks (database restarted) must not crash the process; the pool replaces it.
  pool.on('error', (error) => logger.warn(`database connection lost: ${redact(error.message)}`));
  let closed = false;
  let schema: Promise<void> | undefined;

  const ensureSchema = (): Promise<void> => {
    schema ??= (async () => {
      const client = await pool.connect();
      try {
        await createSchema(client);
      } finally {
        client.release();
      }
    })().catch((error: unknown) => {
      schema = undefined; // the next call tries again
      throw error;
    });
    return schema;
  };

  /** Deletes up to `CLEANUP_BATCH` expired chains, then as many least recently used as needed to make room for one. */
  const cleanup = async (db: pg.PoolClient, at: number) => {
    await db.query(
      `DELETE FROM sequential_thinking_chains WHERE handle IN (
         SELECT handle FROM sequential_thinking_chains WHERE last_used <= $1 ORDER BY last_used LIMIT $2 FOR UPDATE SKIP LOCKED)`,
      [at - ttlMs, CLEANUP_BATCH],
    );
    const { rows } = await db.query<{ n: string }>('SELECT count(*) AS n FROM sequential_thinking_chains');
    const excess = Math.min(Number(rows[0]?.n ?? 0) - maxChains + 1, CLEANUP_BATCH);
    if (excess > 0) {
      await db.query(
        `DELETE FROM sequential_thinking_chains WHERE handle IN (
           SELECT handle FROM sequential_thinking_chains ORDER BY last_used LIMIT $1 FOR UPDATE SKIP LOCKED)`,
        [excess],
      );
    }
  };

  /** The thought's insertion, the eviction beyond the bounds and the answer, within the chain's locked row. */
  const add = async (db: pg.PoolClient, handle: string, seq: number, record: ThoughtRecord, at: number) => {
    const branch = record.branchFromThought && record.branchId ? record.branchId : null;
    await db.query('INSERT INTO sequential_thinking_thoughts (handle, seq, bytes, branch_id, record) VALUES ($1, $2, $3, $4, $5)', [
      handle,
      seq,
      thoughtBytes(record),
      branch,
      JSON.stringify(record),
    ]);
    if (branch !== null) {
      await db.query(
        'INSERT INTO sequential_thinking_branches (handle, branch_id, created_seq) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING',
        [handle, branch, seq],
      );
    }
    // Keep the newest thoughts while both sums hold: the same as dropping the oldest until they do.
    const evicted = await db.query(
      `DELETE FROM sequential_thinking_thoughts t USING (
         SELECT seq, count(*) OVER w AS n, sum(bytes) OVER w AS b FROM sequential_thinking_thoughts
         WHERE handle = $1 WINDOW w AS (ORDER BY seq DESC)) kept
       WHERE t.handle = $1 AND t.seq = kept.seq AND (kept.n > $2 OR kept.b > $3)`,
      [handle, maxHistory, maxHistoryBytes],
    );
    const dropped = evicted.rowCount ?? 0;
    if (dropped > 0) {
      // A branch whose thoughts were all dropped disappears with them.
      await db.query(
        `DELETE FROM sequential_thinking_branches b WHERE b.handle = $1 AND NOT EXISTS (
           SELECT 1 FROM sequential_thinking_thoughts t WHERE t.handle = $1 AND t.branch_id = b.branch_id)`,
        [handle],
      );
    }
    await db.query(
      'UPDATE sequential_thinking_chains SET last_used = $2, next_seq = next_seq + 1, dropped = dropped + $3 WHERE handle = $1',
      [handle, at, dropped],
    );
    const length = await db.query<{ n: string }>('SELECT count(*) AS n FROM sequential_thinking_thoughts WHERE handle = $1', [handle]);
    const branches = await db.query<{ branch_id: string }>(
      'SELECT branch_id FROM sequential_thinking_branches WHERE handle = $1 ORDER BY created_seq',
      [handle],
    );
    return { handle, length: Number(length.rows[0]?.n ?? 0), branches: branches.rows.map((r) => r.branch_id) };
  };

  /** A tool-facing error for a database failure: what failed (redacted), and whether the thought may have been kept. */
  const failure = (error: unknown, committing: boolean): ToolError => {
    const message = redact(error instanceof Error ? error.message : String(error));
    logger.warn(`thought chain database call failed: ${message}`);
    const outcome =
      committing && !(error instanceof pg.DatabaseError)
        ? 'The thought may or may not have been recorded.'
        : 'Nothing was recorded; try again once it is reachable.';
    return new ToolError(`The thought chain database failed: ${message}. ${outcome}`, { cause: error });
  };

  ensureSchema().catch((error: unknown) =>
    logger.warn(`cannot prepare the thought chain tables yet: ${redact(String((error as Error)?.message ?? error))}`),
  );

  return {
    async append(owner, handle, record) {
      if (closed) throw new ToolError('the thought chain store is closed');
      const at = now();
      let db: pg.PoolClient | undefined;
      let broken: Error | undefined;
      let committing = false;
      try {
        await ensureSchema();
        db = await pool.connect();
        await db.query('BEGIN');
        let seq = 0;
        const given = handle ?? mintHandle();
        const key = storedKey(given);
        if (handle === undefined) {
          await cleanup(db, at);
          await db.query('INSERT INTO sequential_thinking_chains (handle, owner, last_used) VALUES ($1, $2, $3)', [key, owner, at]);
        } else {
          const found = await db.query<{ owner: string; next_seq: string }>(
            'SELECT owner, next_seq FROM sequential_thinking_chains WHERE handle = $1 AND last_used > $2 FOR UPDATE',
            [key, at - ttlMs],
          );
          const row = found.rows[0];
          if (!row || row.owner !== owner) throw new UnknownChainError();
          seq = Number(row.next_seq);
        }
        const state = await add(db, key, seq, record, at);
        committing = true;
        await db.query('COMMIT');
        return { ...state, handle: given };
      } catch (error) {
        if (db) {
          broken = await db.query('ROLLBACK').then(
            () => undefined,
            (e: unknown) => e as Error,
          );
        }
        if (error instanceof UnknownChainError) throw error;
        throw failure(error, committing);
      } finally {
        db?.release(broken);
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      await schema?.catch(() => {});
      await pool.end();
    },
  };
}
