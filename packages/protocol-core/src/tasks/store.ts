/**
 * The task state of one server instance (= one 2025-era session): tasks, their results, the input
 * requests they queue for `tasks/result`, and an abort signal per task. Bounded by `maxTasks` and by
 * each task's ttl; nothing is shared between instances, and `close()` drops everything.
 *
 * Same semantics as the v1 SDK's `InMemoryTaskStore` (ids, `ttl` from creation and again from the
 * terminal status, `tasks/list` pages whose cursor is the last id of the previous page), plus the bounds.
 */
import type { Result, Task, TaskStatus } from '@modelcontextprotocol/server';

export type { Task, TaskStatus };

/** `completed`, `failed` and `cancelled` are final: a task in one of them never changes again. */
export function isTerminal(status: TaskStatus): boolean {
  return status === 'completed' || status === 'failed' || status === 'cancelled';
}

/** A request a task sends to the client through `tasks/result` (v1: a request with `relatedTask`). */
export interface QueuedInput {
  request: { method: string; params: Record<string, unknown> };
  resolve(result: unknown): void;
  reject(error: unknown): void;
  /** Checks the client's answer (a standard schema's `validate`, or a zod `parse`). */
  parse(result: unknown): unknown;
}

export interface TaskStoreOptions {
  /** Tasks kept at once; at the limit the oldest finished task goes, and with none finished creation fails. Default 1000. */
  maxTasks?: number;
  /** Input requests one task may have waiting for `tasks/result`. Default 100. */
  maxQueuedInputs?: number;
  /** `tasks/list` page size. Default 10 (the v1 SDK's). */
  pageSize?: number;
  createTaskId?: () => string;
}

export interface TaskStore {
  /** A new `working` task. `ttl: null` keeps it until the store closes or it is evicted. */
  create(params: { ttl: number | null; pollInterval: number }): Task;
  /** A copy of the task, or undefined when unknown (never created, expired or evicted). */
  get(taskId: string): Task | undefined;
  /** Moves a task that is not terminal to `status`; a `statusMessage` replaces the previous one. */
  update(taskId: string, status: TaskStatus, statusMessage?: string): Task;
  /** Stores the task's result and moves it to `status` (`completed` or `failed`). */
  finish(taskId: string, status: 'completed' | 'failed', result: Result): Task;
  /** The stored result, or undefined when the task has none (yet). */
  result(taskId: string): Result | undefined;
  /** One page of tasks in creation order. Throws on a cursor it did not hand out. */
  list(cursor?: string): { tasks: Task[]; nextCursor?: string };
  /** Aborted when the task is cancelled, expires, is evicted or the store closes. */
  signal(taskId: string): AbortSignal | undefined;
  /** Queues an input request for the next `tasks/result` of the task. */
  enqueue(taskId: string, input: QueuedInput): void;
  /** Takes every queued input request of the task. */
  drain(taskId: string): QueuedInput[];
  /** Calls `listener` on each change of the task (status, result, queued input, removal); returns the unsubscribe. */
  watch(taskId: string, listener: () => void): () => void;
  /** Rejects every queued input request and aborts every task; the store is empty afterwards. */
  close(): void;
}

interface Entry {
  task: Task;
  result?: Result;
  controller: AbortController;
  queue: QueuedInput[];
  listeners: Set<() => void>;
  timer?: NodeJS.Timeout;
}

const DEFAULT_MAX_TASKS = 1000;
const DEFAULT_MAX_QUEUED_INPUTS = 100;
const DEFAULT_PAGE_SIZE = 10;

/**
 * 128 random bits in hex. `node:crypto` is loaded on the first task, not when the server starts: most sessions
 * never create one, and loading it costs every cold start a few milliseconds.
 */
function randomTaskId(): string {
  return process.getBuiltinModule('node:crypto').randomBytes(16).toString('hex');
}

class TaskNotFoundError extends Error {
  constructor(readonly taskId: string) {
    super(`Task with ID ${taskId} not found`);
    this.name = 'TaskNotFoundError';
  }
}

export function createTaskStore({
  maxTasks = DEFAULT_MAX_TASKS,
  maxQueuedInputs = DEFAULT_MAX_QUEUED_INPUTS,
  pageSize = DEFAULT_PAGE_SIZE,
  createTaskId = randomTaskId,
}: TaskStoreOptions = {}): TaskStore {
  const entries = new Map<string, Entry>();

  const entryOf = (taskId: string): Entry => {
    const entry = entries.get(taskId);
    if (!entry) throw new TaskNotFoundError(taskId);
    return entry;
  };
  const changed = (entry: Entry) => {
    for (const listener of [...entry.listeners]) listener();
  };
  const rejectQueue = (entry: Entry, reason: string) => {
    for (const input of entry.queue.splice(0)) input.reject(new Error(reason));
  };
  const remove = (taskId: string, reason: string) => {
    const entry = entries.get(taskId);
    if (!entry) return;
    entries.delete(taskId);
    clearTimeout(entry.timer);
    rejectQueue(entry, reason);
    entry.controller.abort(new Error(reason));
    changed(entry);
    entry.listeners.clear();
  };
  /** (Re)starts the expiry clock: from creation, then again from the terminal status (as the v1 store). */
  const expireAfterTtl = (taskId: string, entry: Entry) => {
    clearTimeout(entry.timer);
    if (entry.task.ttl === null || entry.task.ttl === undefined) return;
    entry.timer = setTimeout(() => remove(taskId, `Task ${taskId} expired.`), entry.task.ttl);
    entry.timer.unref();
  };
  const makeRoom = () => {
    if (entries.size < maxTasks) return;
    for (const [taskId, entry] of entries) {
      if (isTerminal(entry.task.status)) {
        remove(taskId, `Task ${taskId} evicted.`);
        return;
      }
    }
    throw new Error(`Too many tasks: ${maxTasks} are still running`);
  };
  const assertNotTerminal = (taskId: string, entry: Entry, next: TaskStatus) => {
    if (isTerminal(entry.task.status)) {
      throw new Error(
        `Cannot update task ${taskId} from terminal status '${entry.task.status}' to '${next}'. Terminal states (completed, failed, cancelled) cannot transition to other states.`,
      );
    }
  };
  const touch = (taskId: string, entry: Entry) => {
    entry.task.lastUpdatedAt = new Date().toISOString();
    if (isTerminal(entry.task.status)) {
      expireAfterTtl(taskId, entry);
      rejectQueue(entry, 'Task cancelled or completed');
      if (entry.task.status === 'cancelled') entry.controller.abort(new Error(`Task ${taskId} was cancelled.`));
    }
    changed(entry);
    return { ...entry.task };
  };

  return {
    create({ ttl, pollInterval }) {
      makeRoom();
      const taskId = createTaskId();
      if (entries.has(taskId)) throw new Error(`Task with ID ${taskId} already exists`);
      const createdAt = new Date().toISOString();
      const task: Task = { taskId, status: 'working', ttl, createdAt, lastUpdatedAt: createdAt, pollInterval };
      const entry: Entry = { task, controller: new AbortController(), queue: [], listeners: new Set() };
      entries.set(taskId, entry);
      expireAfterTtl(taskId, entry);
      return { ...task };
    },
    get(taskId) {
      const entry = entries.get(taskId);
      return entry ? { ...entry.task } : undefined;
    },
    update(taskId, status, statusMessage) {
      const entry = entryOf(taskId);
      assertNotTerminal(taskId, entry, status);
      entry.task.status = status;
      if (statusMessage) entry.task.statusMessage = statusMessage;
      return touch(taskId, entry);
    },
    finish(taskId, status, result) {
      const entry = entryOf(taskId);
      if (isTerminal(entry.task.status)) {
        throw new Error(
          `Cannot store result for task ${taskId} in terminal status '${entry.task.status}'. Task results can only be stored once.`,
        );
      }
      entry.result = result;
      entry.task.status = status;
      return touch(taskId, entry);
    },
    result(taskId) {
      return entries.get(taskId)?.result;
    },
    list(cursor) {
      const ids = [...entries.keys()];
      let start = 0;
      if (cursor) {
        const at = ids.indexOf(cursor);
        if (at < 0) throw new Error(`Invalid cursor: ${cursor}`);
        start = at + 1;
      }
      const page = ids.slice(start, start + pageSize);
      const tasks = page.map((id) => ({ ...entryOf(id).task }));
      return start + pageSize < ids.length ? { tasks, nextCursor: page.at(-1) } : { tasks };
    },
    signal(taskId) {
      return entries.get(taskId)?.controller.signal;
    },
    enqueue(taskId, input) {
      const entry = entryOf(taskId);
      if (isTerminal(entry.task.status)) throw new Error(`Task ${taskId} is ${entry.task.status}: it sends no more requests`);
      if (entry.queue.length >= maxQueuedInputs) {
        throw new Error(`Task message queue overflow: queue size (${entry.queue.length}) exceeds maximum (${maxQueuedInputs})`);
      }
      entry.queue.push(input);
      changed(entry);
    },
    drain(taskId) {
      return entries.get(taskId)?.queue.splice(0) ?? [];
    },
    watch(taskId, listener) {
      const entry = entries.get(taskId);
      if (!entry) {
        queueMicrotask(listener);
        return () => {};
      }
      entry.listeners.add(listener);
      return () => entry.listeners.delete(listener);
    },
    close() {
      for (const taskId of [...entries.keys()]) remove(taskId, 'The session closed.');
    },
  };
}
