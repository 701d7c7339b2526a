/**
 * Memory's task table (`memory_tasks`, `taskTable.ts`) on real PostgreSQL: replicas starting together on a fresh
 * database make it on their first task calls; concurrent changes from two replicas (two pools) to one task are each applied once, none
 * overwritten (the compare-and-set on `version`); an expired task reads as absent and a later `create` deletes it.
 */
import { randomUUID } from 'node:crypto';
import type { TaskRecord } from '@mcpkit/protocol-core/tasks';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { openPostgresDatabase } from '../../src/store/postgres/database.js';
import { openPostgresTaskStore } from '../../src/store/postgres/taskTable.js';
import { freshDatabase, postgresUrl } from './fixture.js';

const url = postgresUrl();
const clock = { now: Date.parse('2026-12-01T10:00:00Z') };
const now = () => clock.now;

const task = (ttlMs: number | null = 60_000): TaskRecord => ({
  taskId: randomUUID(),
  owner: 'anonymous:test',
  status: 'working',
  createdAt: clock.now,
  lastUpdatedAt: clock.now,
  ttlMs,
  pollIntervalMs: 1000,
});

/** Two replicas' connections to the database at `at`, closed on dispose. */
function replicas(at: string) {
  const dbs = [openPostgresDatabase({ url: at, poolSize: 4 }), openPostgresDatabase({ url: at, poolSize: 4 })];
  return {
    stores: dbs.map((db) => openPostgresTaskStore(db, { now })),
    [Symbol.asyncDispose]: async () => {
      await Promise.all(dbs.map((db) => db.close()));
    },
  };
}

describe.skipIf(!url)('memory_tasks: the task table', () => {
  it('is made on a fresh database by the first task calls of replicas starting together, and holds what either stores', async () => {
    await using database = await freshDatabase();
    await using both = replicas(database.url);
    const [a, b] = [task(), task()];
    await Promise.all([both.stores[0]!.create(a), both.stores[1]!.create(b)]);
    expect((await both.stores[1]!.get(a.taskId))?.taskId).toBe(a.taskId);
    expect((await both.stores[0]!.get(b.taskId))?.taskId).toBe(b.taskId);
  });

  it('applies every one of 2 × 25 concurrent changes to one task from two replicas exactly once', async () => {
    await using both = replicas(url!);
    const record = task();
    await both.stores[0]!.create(record);
    const bump = (t: TaskRecord) => ({ ...t, statusMessage: String(Number(t.statusMessage ?? '0') + 1) });
    await Promise.all(both.stores.flatMap((store) => Array.from({ length: 25 }, () => store.update(record.taskId, bump))));
    expect((await both.stores[1]!.get(record.taskId))?.statusMessage).toBe('50');
  });

  it('reads an expired task as absent on every replica; a later create deletes its row', async () => {
    await using both = replicas(url!);
    const record = task(1000);
    await both.stores[0]!.create(record);
    clock.now += 999;
    expect(await both.stores[1]!.get(record.taskId)).toBeDefined();
    clock.now += 1;
    expect(await both.stores[1]!.get(record.taskId)).toBeUndefined();
    expect(await both.stores[0]!.update(record.taskId, (t) => ({ ...t, status: 'completed' }))).toBeUndefined();
    await both.stores[1]!.create(task());
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      expect((await client.query('SELECT 1 FROM memory_tasks WHERE task_id = $1', [record.taskId])).rowCount).toBe(0);
    } finally {
      await client.end();
    }
  });
});
