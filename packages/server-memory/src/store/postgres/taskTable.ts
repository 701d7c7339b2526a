/**
 * The tasks extension's tasks (`@mcpkit/protocol-core/tasks`) in memory's own database, on the process's
 * connections (`database.ts`): one table, `memory_tasks`, one JSON document per task, so replicas behind a load
 * balancer answer each other's `tasks/get`, `tasks/update` and `tasks/cancel` (the work runs where it started and
 * polls its row). The document is `json`, not `jsonb`: `tasks/get` gives the result as the call would have, its
 * keys in their order (`jsonb` sorts them).
 *
 * Like every memory write, each change is one statement that commits on its own: a change is a compare-and-set on
 * the row's `version` (read, change, `UPDATE … WHERE version = $read`, again if another replica got there first),
 * so no row lock is held across round trips. Expired tasks read as absent; each `create` deletes a bounded batch of
 * them in its statement.
 *
 * The table is made on the first task call (after memory's own schema, which every call on `db` sets up first),
 * under an advisory lock so replicas starting together do not race; with the database down the server still
 * starts, and a task call fails as any other call does.
 */
import type { TaskChange, TaskRecord, TaskStore } from '@mcpkit/protocol-core/tasks';
import { isExpired } from '@mcpkit/protocol-core/tasks';
import type { GraphStore } from '../types.js';
import { openPostgresDatabase, type PostgresDatabase } from './database.js';
import { DEFAULT_GRAPH } from './graphName.js';
import { openPostgresGraph, type PostgresStoreOptions } from './postgresStore.js';

/** `pg_advisory_xact_lock` key for making the task table: "mcptasks" as a 63-bit number. */
const TABLE_LOCK = 0x6d63707461736b73n;
/** Expired rows a `create` deletes at most. */
const SWEEP_BATCH = 100;
/** Compare-and-set attempts of one change before it gives up (each loses only to another replica's change). */
const MAX_ATTEMPTS = 50;

// One simple-protocol query: its statements run as one transaction, holding the lock to its end.
const CREATE_TABLE = `SELECT pg_advisory_xact_lock(${TABLE_LOCK.toString()});
  CREATE TABLE IF NOT EXISTS memory_tasks (
    task_id text PRIMARY KEY,
    version bigint NOT NULL,
    expires_at bigint,
    doc json NOT NULL
  );
  CREATE INDEX IF NOT EXISTS memory_tasks_expires ON memory_tasks (expires_at) WHERE expires_at IS NOT NULL`;

export interface PostgresTaskStoreOptions {
  /** Epoch milliseconds now (expiry). Default `Date.now`; tests drive it. */
  now?: () => number;
}

/** Tasks in the `memory_tasks` table of `db` (not closed by the store: `db` is the graph's). */
export function openPostgresTaskStore(db: PostgresDatabase, { now = Date.now }: PostgresTaskStoreOptions = {}): TaskStore {
  let table: Promise<void> | undefined;
  const ensureTable = (): Promise<void> => {
    table ??= db
      .transaction('write', async (client) => {
        await client.query(CREATE_TABLE);
      })
      .catch((error: unknown) => {
        table = undefined; // the next task call tries again
        throw error;
      });
    return table;
  };
  const expiresAt = (task: TaskRecord) => (task.ttlMs === null ? null : task.createdAt + task.ttlMs);

  const read = async (taskId: string): Promise<{ task: TaskRecord; version: string } | undefined> => {
    await ensureTable();
    const { rows } = await db.transaction('read', (client) =>
      client.query<{ doc: TaskRecord; version: string }>('SELECT doc, version FROM memory_tasks WHERE task_id = $1', [taskId]),
    );
    const row = rows[0];
    return row && !isExpired(row.doc, now()) ? { task: row.doc, version: row.version } : undefined;
  };

  return {
    shared: true,
    async create(task) {
      await ensureTable();
      // Committed when it resolves: any replica's `get` finds it.
      await db.transaction('write', (client) =>
        client.query(
          `WITH swept AS (
             DELETE FROM memory_tasks WHERE task_id IN
               (SELECT task_id FROM memory_tasks WHERE expires_at IS NOT NULL AND expires_at <= $4 LIMIT ${SWEEP_BATCH})
           )
           INSERT INTO memory_tasks (task_id, version, expires_at, doc) VALUES ($1, 1, $2, $3)`,
          [task.taskId, expiresAt(task), JSON.stringify(task), now()],
        ),
      );
    },
    async get(taskId) {
      return (await read(taskId))?.task;
    },
    async update(taskId, change: TaskChange) {
      for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
        const current = await read(taskId);
        if (!current) return undefined;
        const next = change(structuredClone(current.task));
        if (!next) return current.task;
        const { rowCount } = await db.transaction('write', (client) =>
          client.query('UPDATE memory_tasks SET doc = $3, expires_at = $4, version = version + 1 WHERE task_id = $1 AND version = $2', [
            taskId,
            current.version,
            JSON.stringify(next),
            expiresAt(next),
          ]),
        );
        if (rowCount === 1) return next;
      }
      throw new Error(`Task ${taskId}: changed by others ${MAX_ATTEMPTS} times in a row; the change was not made`);
    },
  };
}

/**
 * `openPostgresStore`'s graph store, and the task store on the same connections (one pool for both): closing the
 * graph store closes them.
 */
export function openPostgresStoreWithTasks({ graph = DEFAULT_GRAPH, now, ...options }: PostgresStoreOptions & PostgresTaskStoreOptions): {
  store: GraphStore & Pick<PostgresDatabase, 'ping'>;
  tasks: TaskStore;
} {
  const db = openPostgresDatabase(options);
  const store = openPostgresGraph(db, graph);
  return {
    store: {
      ...store,
      ping: db.ping,
      async close() {
        await store.close();
        await db.close();
      },
    },
    tasks: openPostgresTaskStore(db, now ? { now } : {}),
  };
}
