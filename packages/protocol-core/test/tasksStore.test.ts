import { afterEach, describe, expect, it, vi } from 'vitest';
import { createTaskStore, isTerminal, type QueuedInput } from '../src/tasks/store.js';

// The ttl is a pure timer: the ttl tests drive a fake clock instead of waiting.
afterEach(() => {
  vi.useRealTimers();
});

function input(): QueuedInput & { settled: Promise<unknown> } {
  let resolve!: (value: unknown) => void;
  let reject!: (error: unknown) => void;
  const settled = new Promise((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { request: { method: 'elicitation/create', params: {} }, resolve, reject, parse: (v) => v, settled };
}

describe('createTaskStore', () => {
  it('creates working tasks with v1’s shape and copies on read', () => {
    const store = createTaskStore({ createTaskId: () => 'a' });
    const task = store.create({ ttl: null, pollInterval: 7 });
    expect(Object.keys(task)).toEqual(['taskId', 'status', 'ttl', 'createdAt', 'lastUpdatedAt', 'pollInterval']);
    expect(task).toMatchObject({ taskId: 'a', status: 'working', ttl: null, pollInterval: 7 });
    const read = store.get('a');
    if (read) read.status = 'failed';
    expect(store.get('a')?.status).toBe('working');
    expect(() => store.create({ ttl: null, pollInterval: 1 })).toThrow('Task with ID a already exists');
    store.close();
  });

  it('keeps the last status message, and never leaves a terminal status', () => {
    const store = createTaskStore();
    const { taskId } = store.create({ ttl: null, pollInterval: 1 });
    store.update(taskId, 'working', 'one');
    store.update(taskId, 'input_required');
    expect(store.get(taskId)).toMatchObject({ status: 'input_required', statusMessage: 'one' });
    store.finish(taskId, 'completed', { content: [] });
    expect(isTerminal(store.get(taskId)!.status)).toBe(true);
    expect(store.result(taskId)).toEqual({ content: [] });
    expect(() => store.update(taskId, 'working')).toThrow(/from terminal status 'completed'/);
    expect(() => store.finish(taskId, 'completed', {})).toThrow('Task results can only be stored once.');
    expect(() => store.update('gone', 'working')).toThrow('Task with ID gone not found');
    store.close();
  });

  it('forgets a task after its ttl and aborts its work', async () => {
    vi.useFakeTimers();
    const store = createTaskStore();
    const { taskId } = store.create({ ttl: 20, pollInterval: 1 });
    const signal = store.signal(taskId)!;
    await vi.advanceTimersByTimeAsync(19);
    expect(store.get(taskId)).toBeDefined();
    expect(signal.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(store.get(taskId)).toBeUndefined();
    expect(signal.aborted).toBe(true);
  });

  it('restarts the ttl when the task finishes (as v1)', async () => {
    vi.useFakeTimers();
    const store = createTaskStore();
    const { taskId } = store.create({ ttl: 50, pollInterval: 1 });
    await vi.advanceTimersByTimeAsync(30);
    store.finish(taskId, 'completed', {});
    await vi.advanceTimersByTimeAsync(49); // 79 ms after creation: past the first ttl, within the restarted one
    expect(store.get(taskId)?.status).toBe('completed');
    await vi.advanceTimersByTimeAsync(1);
    expect(store.get(taskId)).toBeUndefined();
  });

  it('at maxTasks evicts the oldest finished task, and refuses when every task still runs', () => {
    let n = 0;
    const store = createTaskStore({ maxTasks: 2, createTaskId: () => `t${++n}` });
    store.create({ ttl: null, pollInterval: 1 });
    store.create({ ttl: null, pollInterval: 1 });
    expect(() => store.create({ ttl: null, pollInterval: 1 })).toThrow('Too many tasks: 2 are still running');
    store.finish('t2', 'completed', {});
    store.create({ ttl: null, pollInterval: 1 });
    expect(store.list().tasks.map((t) => t.taskId)).toEqual(['t1', 't3']);
    store.close();
  });

  it('pages in creation order; the cursor is the last id of the page before', () => {
    let n = 0;
    const store = createTaskStore({ pageSize: 2, createTaskId: () => `t${++n}` });
    for (let i = 0; i < 5; i++) store.create({ ttl: null, pollInterval: 1 });
    const first = store.list();
    expect(first).toEqual({
      tasks: [expect.objectContaining({ taskId: 't1' }), expect.objectContaining({ taskId: 't2' })],
      nextCursor: 't2',
    });
    expect(store.list('t2').nextCursor).toBe('t4');
    expect(store.list('t4')).toEqual({ tasks: [expect.objectContaining({ taskId: 't5' })] });
    expect(() => store.list('zz')).toThrow('Invalid cursor: zz');
    store.close();
  });

  it('bounds queued input requests, rejects them when the task ends, and wakes watchers', async () => {
    const store = createTaskStore({ maxQueuedInputs: 1 });
    const { taskId } = store.create({ ttl: null, pollInterval: 1 });
    let changes = 0;
    const stop = store.watch(taskId, () => void changes++);
    const first = input();
    store.enqueue(taskId, first);
    expect(() => store.enqueue(taskId, input())).toThrow('Task message queue overflow: queue size (1) exceeds maximum (1)');
    store.update(taskId, 'cancelled', 'stop');
    await expect(first.settled).rejects.toThrow('Task cancelled or completed');
    expect(store.signal(taskId)?.aborted).toBe(true);
    expect(changes).toBe(2);
    stop();
    expect(() => store.enqueue(taskId, input())).toThrow(`Task ${taskId} is cancelled: it sends no more requests`);
    store.close();
  });

  it('close rejects what is queued, aborts every task and empties the store', async () => {
    const store = createTaskStore();
    const { taskId } = store.create({ ttl: null, pollInterval: 1 });
    const queued = input();
    store.enqueue(taskId, queued);
    const signal = store.signal(taskId)!;
    store.close();
    await expect(queued.settled).rejects.toThrow('The session closed.');
    expect(signal.aborted).toBe(true);
    expect(store.list()).toEqual({ tasks: [] });
  });
});
