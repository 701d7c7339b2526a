/**
 * One task's work in the process that started it: its abort signal, its input requests and their answers,
 * its progress as status messages, and its end (result, JSON-RPC error) written to the store unless the task
 * is terminal already (cancelled, expired).
 */
import type { Logger } from '../logger.js';
import { isTerminalStatus, type TaskContext, type TaskInputRequest, type TaskRecord, type TaskStore } from './types.js';
import { taskError } from './wire.js';

export type TaskWork = (task: TaskContext) => Promise<Record<string, unknown>>;

export interface Execution {
  readonly context: TaskContext;
  /** Reads the task again: hands answers to the requests waiting for them, aborts when it is terminal. */
  refresh(): Promise<void>;
  abort(reason: string): void;
}

interface Waiter {
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

export interface ExecutionOptions {
  store: TaskStore;
  logger: Logger;
  now: () => number;
  /** Called once the work is over and its end recorded (or dropped). */
  onEnd(): void;
}

/** Starts `work` for the (already stored) task `record`. */
export function startExecution(record: TaskRecord, work: TaskWork, { store, logger, now, onEnd }: ExecutionOptions): Execution {
  const { taskId } = record;
  const controller = new AbortController();
  const waiters = new Map<string, Waiter>();
  let keys = 0;
  let pendingMessage: string | undefined;
  let writing = false;

  const abort = (reason: string) => {
    if (controller.signal.aborted) return;
    controller.abort(new Error(reason));
    for (const waiter of waiters.values()) waiter.reject(controller.signal.reason);
    waiters.clear();
  };

  const write = async () => {
    writing = true;
    try {
      while (pendingMessage !== undefined) {
        const message = pendingMessage;
        pendingMessage = undefined;
        await store.update(taskId, (t) =>
          isTerminalStatus(t.status) ? undefined : { ...t, statusMessage: message, lastUpdatedAt: now() },
        );
      }
    } catch (error) {
      logger.debug(`Task ${taskId}: a progress message was not stored:`, error);
    } finally {
      writing = false;
    }
  };

  const context: TaskContext = {
    taskId,
    signal: controller.signal,
    progress(message) {
      if (controller.signal.aborted) return;
      pendingMessage = message;
      if (!writing) void write();
    },
    input(request: TaskInputRequest) {
      if (controller.signal.aborted) return Promise.reject(controller.signal.reason);
      keys += 1;
      const key = `input-${keys}`;
      const answer = new Promise<unknown>((resolve, reject) => waiters.set(key, { resolve, reject }));
      void store
        .update(taskId, (t) =>
          isTerminalStatus(t.status)
            ? undefined
            : { ...t, status: 'input_required', inputRequests: { ...t.inputRequests, [key]: request }, lastUpdatedAt: now() },
        )
        .then(
          (stored) => {
            if (!stored || isTerminalStatus(stored.status)) abort('The task ended before its input request was made.');
          },
          (error: unknown) => waiters.get(key)?.reject(error),
        );
      return answer;
    },
  };

  const refresh = async () => {
    const task = await store.get(taskId);
    if (!task || isTerminalStatus(task.status)) {
      abort(task ? `The task is ${task.status}.` : 'The task expired.');
      return;
    }
    const answered = Object.keys(task.inputResponses ?? {}).filter((key) => waiters.has(key));
    if (answered.length === 0) return;
    const responses = task.inputResponses ?? {};
    await store.update(taskId, (t) => {
      const rest = { ...t.inputResponses };
      for (const key of answered) delete rest[key];
      return { ...t, inputResponses: rest };
    });
    for (const key of answered) {
      waiters.get(key)?.resolve(responses[key]);
      waiters.delete(key);
    }
  };

  const finish = async (end: Pick<TaskRecord, 'status' | 'result' | 'error' | 'statusMessage'>) => {
    await store.update(taskId, (t) => {
      if (isTerminalStatus(t.status)) return undefined;
      const { inputRequests: _requests, inputResponses: _responses, ...rest } = t;
      return { ...rest, ...end, lastUpdatedAt: now() };
    });
  };

  // Shared stores: cancellations and answers may arrive at another replica, so the work polls its task.
  const poll = store.shared ? setInterval(() => void refresh().catch(() => {}), record.pollIntervalMs) : undefined;
  poll?.unref();

  Promise.resolve()
    .then(() => work(context))
    .then(
      (result) => finish({ status: 'completed', result }),
      (error: unknown) => {
        if (controller.signal.aborted) return;
        const jsonRpc = taskError(error);
        if (jsonRpc.code === -32603 && !(error instanceof Error && 'code' in error)) logger.error(`Task ${taskId} failed:`, error);
        return finish({ status: 'failed', error: jsonRpc, statusMessage: jsonRpc.message });
      },
    )
    .catch((error: unknown) => logger.error(`Task ${taskId}: its end was not stored:`, error))
    .finally(() => {
      if (poll) clearInterval(poll);
      abort('The task is over.');
      onEnd();
    });

  return { context, refresh, abort };
}
