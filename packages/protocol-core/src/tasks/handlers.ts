/**
 * `tasks/get`, `tasks/result`, `tasks/list` and `tasks/cancel` for 2025-11-25 clients, answered from one
 * server instance's `TaskStore` with the v1 SDK's wire shapes and texts (its experimental tasks layer,
 * which SDK v2 removed). Registered through the public custom-method form of `setRequestHandler`.
 *
 * A 2026-07-28 request gets -32601: those clients have the tasks extension (SEP-2663), which this layer
 * does not implement, and whose `tasks/get` / `tasks/cancel` mean something else.
 */
import {
  type McpServer,
  ProtocolError,
  ProtocolErrorCode,
  RELATED_TASK_META_KEY,
  type Result,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { z } from 'zod';
import { errorMessage } from '../errors.js';
import { servesStatelessRequest, statelessSession } from '../stateless.js';
import { isModernEra } from './era.js';
import { isTerminal, type TaskStore } from './store.js';

const TaskIdParams = z.looseObject({ taskId: z.string() });
const ListParams = z.looseObject({ cursor: z.string().optional() }).optional();

/** What the v1 SDK advertised for a server whose tools run as tasks. */
export const TASKS_CAPABILITY = { list: {}, cancel: {}, requests: { tools: { call: {} } } } as const;

const invalidParams = (message: string) => new ProtocolError(ProtocolErrorCode.InvalidParams, message);

function refuseModern(server: McpServer): void {
  if (isModernEra(server)) throw new ProtocolError(ProtocolErrorCode.MethodNotFound, 'Method not found');
  // No task outlives the request's instance: "Task not found" would hide why.
  if (servesStatelessRequest(server)) throw new ProtocolError(ProtocolErrorCode.InvalidRequest, statelessSession('tasks'));
}

/** Resolves on the task's next change or when `signal` aborts (then rejects, as v1: -32600 `Request cancelled`). */
function nextChange(store: TaskStore, taskId: string, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const cancelled = () => {
      stop();
      reject(new ProtocolError(ProtocolErrorCode.InvalidRequest, 'Request cancelled'));
    };
    const stop = store.watch(taskId, () => {
      stop();
      signal.removeEventListener('abort', cancelled);
      resolve();
    });
    if (signal.aborted) cancelled();
    else signal.addEventListener('abort', cancelled, { once: true });
  });
}

/**
 * Sends the task's queued input requests to the client on this `tasks/result` request (so over HTTP they
 * travel on its stream), and routes each answer back to the task that asked.
 */
function deliverQueued(store: TaskStore, taskId: string, ctx: ServerContext): void {
  for (const input of store.drain(taskId)) {
    const { method, params } = input.request;
    const related = { ...params, _meta: { ...(params._meta as object | undefined), [RELATED_TASK_META_KEY]: { taskId } } };
    ctx.mcpReq.send({ method, params: related }, z.unknown()).then((answer) => {
      try {
        input.resolve(input.parse(answer));
      } catch (error) {
        input.reject(error);
      }
    }, input.reject);
  }
}

/** `tasks/result`: delivers queued requests, waits until the task is terminal, then answers its result. */
async function taskResult(store: TaskStore, taskId: string, ctx: ServerContext): Promise<Result> {
  for (;;) {
    if (!store.get(taskId)) throw invalidParams(`Task not found: ${taskId}`);
    deliverQueued(store, taskId, ctx);
    const task = store.get(taskId);
    if (!task) throw invalidParams(`Task not found: ${taskId}`);
    if (isTerminal(task.status)) {
      const result = store.result(taskId);
      // The v1 store's text; the SDK answered it as an internal error.
      if (!result) throw new ProtocolError(ProtocolErrorCode.InternalError, `Task ${taskId} has no result stored`);
      return { ...result, _meta: { ...result._meta, [RELATED_TASK_META_KEY]: { taskId } } };
    }
    await nextChange(store, taskId, ctx.mcpReq.signal);
  }
}

/** Registers the four `tasks/*` handlers on `server` and advertises the `tasks` capability (before connect). */
export function serveTaskRequests(server: McpServer, store: TaskStore): void {
  server.server.registerCapabilities({ tasks: TASKS_CAPABILITY });

  server.server.setRequestHandler('tasks/get', { params: TaskIdParams }, ({ taskId }) => {
    refuseModern(server);
    const task = store.get(taskId);
    if (!task) throw invalidParams('Failed to retrieve task: Task not found');
    // As v1 (and the spec): no related-task metadata, the taskId parameter says it.
    return { ...task };
  });

  server.server.setRequestHandler('tasks/result', { params: TaskIdParams }, ({ taskId }, ctx) => {
    refuseModern(server);
    return taskResult(store, taskId, ctx);
  });

  server.server.setRequestHandler('tasks/list', { params: ListParams }, (params) => {
    refuseModern(server);
    try {
      const { tasks, nextCursor } = store.list(params?.cursor);
      return { tasks, nextCursor, _meta: {} };
    } catch (error) {
      throw invalidParams(`Failed to list tasks: ${errorMessage(error)}`);
    }
  });

  server.server.setRequestHandler('tasks/cancel', { params: TaskIdParams }, ({ taskId }) => {
    refuseModern(server);
    const task = store.get(taskId);
    if (!task) throw invalidParams(`Task not found: ${taskId}`);
    if (isTerminal(task.status)) throw invalidParams(`Cannot cancel task in terminal status: ${task.status}`);
    // As v1: no status notification for a cancellation the client asked for.
    const cancelled = store.update(taskId, 'cancelled', 'Client cancelled task execution.');
    return { _meta: {}, ...cancelled };
  });
}
