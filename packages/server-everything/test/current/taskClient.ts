import { InMemoryTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks';
import { CreateMessageRequestSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { createTestClock } from '../clock.js';
import { connectClient, currentServer, FULL_CAPABILITIES } from './helpers.js';

/** The client's task store, counting the server's polls (`tasks/get`) of each task. */
export class PolledTaskStore extends InMemoryTaskStore {
  readonly #polls = new Map<string, number>();
  readonly #waiting: { taskId: string; n: number; resolve: () => void }[] = [];
  override async getTask(taskId: string, sessionId?: string) {
    const task = await super.getTask(taskId, sessionId);
    this.#polls.set(taskId, (this.#polls.get(taskId) ?? 0) + 1);
    // The waiters run once this answer is on its way (the in-memory pair delivers it before the next immediate).
    setImmediate(() => this.#notify());
    return task;
  }
  /** Resolves once the server polled `taskId` `n` times (each answered before the store changes again). */
  polled(taskId: string, n: number): Promise<void> {
    return new Promise((resolve) => {
      this.#waiting.push({ taskId, n, resolve });
      this.#notify();
    });
  }
  #notify(): void {
    for (const waiter of [...this.#waiting]) {
      if ((this.#polls.get(waiter.taskId) ?? 0) < waiter.n) continue;
      this.#waiting.splice(this.#waiting.indexOf(waiter), 1);
      waiter.resolve();
    }
  }
}

/**
 * A client that runs sampling and elicitation requests as tasks when asked to; `finish` ends them once the
 * server has polled the task once (so its first poll sees the task as `start` left it). The server polls on
 * `clock`: run a call with `clock.run(call)`.
 */
export async function taskClient(
  finish: (kind: 'sampling' | 'elicitation', store: PolledTaskStore, taskId: string) => Promise<void>,
  options: { capabilities?: typeof FULL_CAPABILITIES; start?: (store: PolledTaskStore, taskId: string) => Promise<void> } = {},
) {
  const store = new PolledTaskStore();
  const clock = createTestClock();
  const pair = await connectClient(currentServer({ scheduler: clock.scheduler }), {
    capabilities: options.capabilities ?? FULL_CAPABILITIES,
    taskStore: store,
  });
  const requests: unknown[] = [];
  const handle = (kind: 'sampling' | 'elicitation') => async (request: { params: Record<string, unknown> }, extra: unknown) => {
    requests.push(request.params);
    const taskStore = (extra as { taskStore: { createTask(o: { ttl?: number | null }): Promise<{ taskId: string }> } }).taskStore;
    const task = await taskStore.createTask({ ttl: (request.params.task as { ttl: number }).ttl });
    await options.start?.(store, task.taskId);
    void store.polled(task.taskId, 1).then(() => finish(kind, store, task.taskId));
    return { task };
  };
  pair.client.setRequestHandler(CreateMessageRequestSchema, handle('sampling') as never);
  pair.client.setRequestHandler(ElicitRequestSchema, handle('elicitation') as never);
  return { pair, requests, store, clock };
}
