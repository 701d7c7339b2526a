/** The tasks extension's in-memory store on its own: lookups before any task, copies, its ttl on the injected clock. */
import { describe, expect, it } from 'vitest';
import { createMemoryTaskStore } from '../../src/tasksExtension/memoryStore.ts';
import type { TaskRecord } from '../../src/tasksExtension/types.ts';

const record = (taskId: string, now: number, ttlMs: number | null = 1000): TaskRecord => ({
  taskId,
  owner: 'session:a',
  status: 'working',
  createdAt: now,
  lastUpdatedAt: now,
  ttlMs,
  pollIntervalMs: 100,
});

describe('createMemoryTaskStore', () => {
  it('knows no task before the first one is made: get and update answer undefined, close is fine', async () => {
    const store = createMemoryTaskStore();
    expect(await store.get('nope')).toBeUndefined();
    expect(await store.update('nope', (t) => ({ ...t, status: 'completed' }))).toBeUndefined();
    await store.close?.();
  });

  it('keeps copies, updates in place, refuses a second task of the same id, forgets a task at its ttl', async () => {
    let now = 1_000_000;
    const store = createMemoryTaskStore({ now: () => now });
    const made = record('t1', now);
    await store.create(made);
    made.status = 'failed'; // the caller's object is not the stored one
    expect((await store.get('t1'))?.status).toBe('working');
    await expect(store.create(record('t1', now))).rejects.toThrow('Task t1 exists already');
    expect((await store.update('t1', (t) => ({ ...t, status: 'completed' })))?.status).toBe('completed');
    expect((await store.get('t1'))?.status).toBe('completed');
    now += 999;
    expect(await store.get('t1')).toBeDefined();
    now += 1;
    expect(await store.get('t1')).toBeUndefined();
    await store.close?.();
  });
});
