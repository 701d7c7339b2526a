import type { LRUCache } from 'lru-cache';
import { isExpired, type TaskChange, type TaskRecord, type TaskStore } from './types.js';

export interface MemoryTaskStoreOptions {
  /** Tasks kept at most; the least recently used beyond it is forgotten (its id becomes unknown). Default 10 000. */
  maxTasks?: number;
  /** Epoch milliseconds now. Default `Date.now`; tests drive it. */
  now?: () => number;
}

/**
 * Tasks in this process only (lost when it stops): an LRU bounded by `maxTasks`, each entry living its
 * `ttlMs` by the injected clock (lru-cache's own ttl, with `perf` reading `now`). lru-cache is loaded with the
 * first task, not with the server: most sessions never make one, and every server's start would pay for it.
 */
export function createMemoryTaskStore({ maxTasks = 10_000, now = Date.now }: MemoryTaskStoreOptions = {}): TaskStore {
  let cache: Promise<LRUCache<string, TaskRecord>> | undefined;
  const load = () =>
    (cache ??= import('lru-cache').then(
      ({ LRUCache }) => new LRUCache<string, TaskRecord>({ max: maxTasks, perf: { now }, ttlAutopurge: false }),
    ));
  const live = (tasks: LRUCache<string, TaskRecord>, taskId: string): TaskRecord | undefined => {
    const task = tasks.get(taskId);
    if (!task) return undefined;
    // lru-cache's ttl and ours agree; this guards `ttl: null` tasks whose record was changed by hand.
    if (isExpired(task, now())) {
      tasks.delete(taskId);
      return undefined;
    }
    return task;
  };
  const ttlOf = (task: TaskRecord) => (task.ttlMs === null ? 0 : Math.max(1, task.createdAt + task.ttlMs - now()));
  return {
    shared: false,
    async create(task) {
      const tasks = await load();
      if (tasks.has(task.taskId)) throw new Error(`Task ${task.taskId} exists already`);
      tasks.set(task.taskId, structuredClone(task), { ttl: ttlOf(task) });
    },
    async get(taskId) {
      // Before the first task nothing is known: lru-cache is not loaded for a lookup.
      const tasks = await cache;
      const task = tasks && live(tasks, taskId);
      return task && structuredClone(task);
    },
    async update(taskId, change: TaskChange) {
      const tasks = await cache;
      const task = tasks && live(tasks, taskId);
      if (!tasks || !task) return undefined;
      const next = change(structuredClone(task));
      if (!next) return structuredClone(task);
      tasks.set(taskId, structuredClone(next), { ttl: ttlOf(next) });
      return structuredClone(next);
    },
    async close() {
      (await cache)?.clear();
    },
  };
}
