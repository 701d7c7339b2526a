/**
 * `@mcpkit/protocol-core/tasks-postgres`: tasks in PostgreSQL, for replicas that must answer each other's
 * `tasks/get`, `tasks/update` and `tasks/cancel` (the work still runs where it started and polls its row for
 * cancellations and answers). One table, one JSON document per task; every change is a transaction holding the
 * row (`SELECT … FOR UPDATE`), so concurrent answers and cancellations never overwrite each other. Expired rows
 * read as absent and are deleted by `sweep()` (and on each `create`, a bounded batch).
 *
 * `pg` is an optional peer: pass your own pool (`pool`, e.g. memory's `--storage postgres` pool), or a `url` and the
 * store loads `pg` and owns its pool.
 */
import { isExpired, type TaskChange, type TaskRecord, type TaskStore } from './types.js';

/** The part of a `pg` client this store uses. */
export interface PgQueryable {
  query(text: string, values?: unknown[]): Promise<{ rows: Record<string, unknown>[]; rowCount: number | null }>;
}
/** The part of a `pg.Pool` this store uses. */
export interface PgPoolLike extends PgQueryable {
  connect(): Promise<PgQueryable & { release(error?: Error | boolean): void }>;
  end?(): Promise<void>;
}

export interface PostgresTaskStoreOptions {
  /** A pool to use (not closed by the store). */
  pool?: PgPoolLike;
  /** Or a connection URL: the store loads `pg` and closes its pool on `close()`. */
  url?: string;
  /** Table name (letters, digits, `_`). Default `mcp_tasks`. */
  table?: string;
  /** Epoch milliseconds now. Default `Date.now`. */
  now?: () => number;
  /** Expired rows deleted per `create` at most. Default 100. */
  sweepBatch?: number;
}

export interface PostgresTaskStore extends TaskStore {
  /** Deletes expired tasks (at most `limit`); resolves with how many. */
  sweep(limit?: number): Promise<number>;
}

const TABLE = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

async function poolFromUrl(url: string): Promise<PgPoolLike> {
  let pg: { default?: { Pool: new (config: { connectionString: string }) => PgPoolLike }; Pool?: unknown };
  try {
    // A variable specifier: `pg` is an optional peer, loaded only for a `url`.
    const specifier = 'pg';
    pg = (await import(specifier)) as never;
  } catch {
    throw new Error('The PostgreSQL task store needs the `pg` package (npm install pg)');
  }
  const Pool = (pg.default?.Pool ?? pg.Pool) as new (config: { connectionString: string }) => PgPoolLike;
  return new Pool({ connectionString: url });
}

/** Creates the table if needed and returns the store. */
export async function createPostgresTaskStore(options: PostgresTaskStoreOptions): Promise<PostgresTaskStore> {
  const { table = 'mcp_tasks', now = Date.now, sweepBatch = 100 } = options;
  if (!TABLE.test(table)) throw new Error(`Invalid task table name: ${table}`);
  if (!options.pool && !options.url) throw new Error('The PostgreSQL task store needs a pool or a url');
  const owned = !options.pool;
  const pool = options.pool ?? (await poolFromUrl(options.url as string));
  const t = `"${table}"`;
  await pool.query(
    `CREATE TABLE IF NOT EXISTS ${t} (
       task_id text PRIMARY KEY,
       expires_at bigint,
       doc jsonb NOT NULL
     )`,
  );
  await pool.query(`CREATE INDEX IF NOT EXISTS "${table}_expires" ON ${t} (expires_at) WHERE expires_at IS NOT NULL`);

  const expiresAt = (task: TaskRecord) => (task.ttlMs === null ? null : task.createdAt + task.ttlMs);
  const live = (row: Record<string, unknown> | undefined): TaskRecord | undefined => {
    if (!row) return undefined;
    const task = row.doc as TaskRecord;
    return isExpired(task, now()) ? undefined : task;
  };

  const sweep = async (limit = sweepBatch) => {
    const res = await pool.query(
      `DELETE FROM ${t} WHERE task_id IN (SELECT task_id FROM ${t} WHERE expires_at IS NOT NULL AND expires_at <= $1 LIMIT $2)`,
      [now(), limit],
    );
    return res.rowCount ?? 0;
  };

  return {
    shared: true,
    sweep,
    async create(task) {
      await sweep().catch(() => 0);
      // A committed INSERT: any replica's `get` finds it once this resolves.
      await pool.query(`INSERT INTO ${t} (task_id, expires_at, doc) VALUES ($1, $2, $3)`, [
        task.taskId,
        expiresAt(task),
        JSON.stringify(task),
      ]);
    },
    async get(taskId) {
      const res = await pool.query(`SELECT doc FROM ${t} WHERE task_id = $1`, [taskId]);
      return live(res.rows[0]);
    },
    async update(taskId, change: TaskChange) {
      const client = await pool.connect();
      let failed: Error | undefined;
      try {
        await client.query('BEGIN');
        const res = await client.query(`SELECT doc FROM ${t} WHERE task_id = $1 FOR UPDATE`, [taskId]);
        const task = live(res.rows[0]);
        const next = task && change(structuredClone(task));
        if (next) {
          await client.query(`UPDATE ${t} SET doc = $2, expires_at = $3 WHERE task_id = $1`, [
            taskId,
            JSON.stringify(next),
            expiresAt(next),
          ]);
        }
        await client.query('COMMIT');
        return next ?? task;
      } catch (error) {
        failed = error as Error;
        await client.query('ROLLBACK').catch(() => {});
        throw error;
      } finally {
        client.release(failed);
      }
    },
    async close() {
      if (owned) await pool.end?.();
    },
  };
}
