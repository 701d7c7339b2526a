/**
 * Tasks on the file store's path (`memoryTasks()`: tasks in this process), raw 2026-07-28 JSON-RPC over HTTP. The
 * one time memory's reads report progress is while the graph loads in the background (`awaitLoad.ts`): as a task,
 * that progress is the task's status message, and the task completes with the inline answer once the load is done.
 * The load here is the test's: a store whose `ready` reports what the test says and waits for its release.
 */
import { startHttp } from '@mcpkit/protocol-core/testing';
import { describe, expect, it } from 'vitest';
import { createMemoryServer } from '../src/server.js';
import { createMemoryStore } from '../src/store/memoryStore.js';
import type { GraphStore, LoadProgress, ReadyOptions } from '../src/store/types.js';
import { memoryTasks } from '../src/tasks.js';
import { rpc, settled, TASKS, toolResult } from './tasksRpc.js';

const MIB = 1024 * 1024;

/** An in-memory graph whose "load" is driven by the test: `report` tells the waiting calls, `finish` ends it. */
function loadingStore(): GraphStore & { report(p: LoadProgress): void; finish(): void } {
  const store = createMemoryStore();
  const listeners = new Set<(p: LoadProgress) => void>();
  let finish: () => void = () => {};
  const loaded = new Promise<void>((resolve) => {
    finish = resolve;
  });
  return {
    ...store,
    ready: async ({ onProgress, signal }: ReadyOptions = {}) => {
      if (onProgress) listeners.add(onProgress);
      try {
        await new Promise<void>((resolve, reject) => {
          signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
          void loaded.then(resolve);
        });
      } finally {
        if (onProgress) listeners.delete(onProgress);
      }
    },
    report: (p) => {
      for (const l of listeners) l(p);
    },
    finish: () => finish(),
  };
}

describe('tasks on the file store’s path (in this process)', () => {
  it('lists the extension in server/discover', async () => {
    await using http = await startHttp({ createServer: () => createMemoryServer({ store: createMemoryStore(), tasks: memoryTasks() }) });
    const { result } = await rpc(http.endpoint, 'server/discover');
    expect((result?.capabilities as { extensions?: object } | undefined)?.extensions).toHaveProperty([TASKS]);
  });

  it('shows the load’s progress as the task’s status message, then completes with the inline answer', async () => {
    const store = loadingStore();
    await store.createEntities([{ name: 'Ada', entityType: 'person', observations: ['wrote the first program'] }]);
    const tasks = memoryTasks();
    await using http = await startHttp({ createServer: () => createMemoryServer({ store, tasks }), close: () => tasks.close() });
    const { result: created } = await rpc(http.endpoint, 'tools/call', { name: 'search_nodes', arguments: { query: 'Ada' } });
    expect(created).toMatchObject({ resultType: 'task', status: 'working' });
    const taskId = created?.taskId as string;
    const status = async () => (await rpc(http.endpoint, 'tasks/get', { taskId })).result;
    // The task's work waits for the load and hears its progress (reported again until it listens).
    await expect
      .poll(async () => {
        store.report({ loaded: MIB, total: 4 * MIB });
        return (await status())?.statusMessage;
      })
      .toBe('loading the knowledge graph: 1.0 of 4.0 MiB');
    expect((await status())?.status).toBe('working');
    store.finish();
    const done = await settled(http.endpoint, taskId);
    const inline = await rpc(http.endpoint, 'tools/call', { name: 'search_nodes', arguments: { query: 'Ada' } }, { optIn: false });
    expect(done).toMatchObject({ status: 'completed' });
    expect(JSON.stringify(done.result)).toBe(JSON.stringify(toolResult(inline.result)));
    expect(done.result).toMatchObject({ structuredContent: { entities: [{ name: 'Ada' }] } });
  });
});
