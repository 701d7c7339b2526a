/**
 * Tools that run as tasks (2025-11-25, SEP-1686), on SDK v2, which removed the v1 SDK's experimental
 * tasks layer (`registerToolTask`, `extra.taskStore`). One layer per server instance (= per session):
 *
 * - a `tools/call` with `params.task` for a task tool answers a `CreateTaskResult` at once and runs the
 *   tool in the background, with a `notifications/tasks/status` on each status change (as v1);
 * - `tasks/get`, `tasks/result`, `tasks/list`, `tasks/cancel` are answered from the layer's store;
 * - the same call without `params.task` is the v1 error result (`taskSupport: 'required'`), except for a
 *   2026-07-28 client, which has no 2025 tasks: it gets the tool run inline (its result, without input
 *   requests). The tasks extension (SEP-2663) is not implemented.
 */
import {
  type CallToolResult,
  type JSONRPCRequest,
  type McpServer,
  ProtocolError,
  ProtocolErrorCode,
  type RegisteredTool,
  type ServerContext,
  type Task,
  type TaskStatus,
} from '@modelcontextprotocol/server';
import { z } from 'zod';
import { describeIssues, tooLargeMessage } from '../answerCap.js';
import type { Annotations } from '../define.js';
import { hideUnexpected, ToolError } from '../errors.js';
import { type Logger, silentLogger } from '../logger.js';
import { errorResult } from '../results.js';
import { sizeOver } from '../size.js';
import { servesStatelessRequest, statelessSession } from '../stateless.js';
import { isModernEra } from './era.js';
import { serveTaskRequests } from './handlers.js';
import { interceptRequests } from './intercept.js';
import { createTaskStore, isTerminal, type TaskStore, type TaskStoreOptions } from './store.js';

/** The work of one task, as a task tool's `run` sees it. */
export interface RunningTask {
  /** Undefined when the tool runs inline (a 2026-07-28 client). */
  readonly taskId: string | undefined;
  /** Aborted when the task is cancelled, expires or the session closes (inline: when the call is cancelled). */
  readonly signal: AbortSignal;
  /** Whether `requestInput` can reach the client (false inline). */
  readonly canRequestInput: boolean;
  /** The task's status now (`undefined` once it is gone: expired, evicted or the session closed). */
  status(): TaskStatus | undefined;
  /** Moves the task to `working` or `input_required` and notifies the client; throws once it is terminal. */
  update(status: 'working' | 'input_required', statusMessage?: string): Promise<void>;
  /**
   * Sends a request to the client through its next `tasks/result` for this task (v1: `relatedTask`), with
   * the related-task `_meta`, and resolves with the answer parsed by `schema`.
   */
  requestInput<T>(request: { method: string; params: Record<string, unknown> }, schema: z.ZodType<T>): Promise<T>;
}

export interface TaskToolDefinition<Ctx, In extends z.ZodRawShape = z.ZodRawShape> {
  name: string;
  title: string;
  description: string;
  input: In;
  annotations: Annotations;
  /** Every task of the tool lives this long, whatever the client asks. Default: the client's ttl, capped by `maxTtlMs`. */
  ttlMs?: number;
  /** The `pollInterval` the task suggests. Default 1000 ms (v1's). */
  pollIntervalMs?: number;
  /**
   * The work. Its result becomes the task's (`completed`); a throw makes it `failed` with the error as its
   * status message, unless the task was cancelled or the session closed meanwhile.
   */
  run(args: z.infer<z.ZodObject<In>>, ctx: Ctx, task: RunningTask): Promise<CallToolResult>;
}

// biome-ignore lint/suspicious/noExplicitAny: a layer serves task tools of heterogeneous shapes.
type AnyTaskTool<Ctx> = TaskToolDefinition<Ctx, any>;

export interface TaskLayerOptions extends TaskStoreOptions {
  logger?: Logger;
  /** The longest ttl a client may ask for (and the ttl of a task it asks none for). Default one hour. */
  maxTtlMs?: number;
}

export interface TaskLayer {
  readonly store: TaskStore;
  /**
   * Starts answering task-augmented `tools/call` requests on the server's transport. Call once the server
   * is connected (e.g. from `oninitialized`); calling it again is harmless.
   */
  attach(): void;
  /** Registers a task tool (listed with `execution: { taskSupport: 'required' }`; the listing sends `list_changed`). */
  registerTool<In extends z.ZodRawShape, Ctx>(definition: TaskToolDefinition<Ctx, In>, ctx: Ctx): RegisteredTool;
  /** Stops every task and forgets them (call when the server closes). */
  close(): void;
}

const DEFAULT_POLL_INTERVAL_MS = 1000;
const DEFAULT_MAX_TTL_MS = 3_600_000;
const TaskParams = z.looseObject({ ttl: z.number().nonnegative().nullish() });

interface Registered<Ctx> {
  tool: AnyTaskTool<Ctx>;
  ctx: Ctx;
}

/** zod issues as SDK v2 words them in its tool-argument errors: `path: problem`, joined by `, `. */
function sdkIssues(issues: ReadonlyArray<z.core.$ZodIssue>): string {
  return issues.map((issue) => (issue.path.length ? `${issue.path.map(String).join('.')}: ${issue.message}` : issue.message)).join(', ');
}

/** The text v1's McpServer answered (as an `isError` result) for a required-task tool called without a task. */
export function taskRequiredText(name: string): string {
  return `MCP error -32601: Tool ${name} requires task augmentation (taskSupport: 'required')`;
}

export function createTaskLayer(server: McpServer, options: TaskLayerOptions = {}): TaskLayer {
  const { logger = silentLogger, maxTtlMs = DEFAULT_MAX_TTL_MS, ...storeOptions } = options;
  const store = createTaskStore(storeOptions);
  const tools = new Map<string, Registered<unknown>>();
  let attachedTo: unknown;
  serveTaskRequests(server, store);

  const notifyStatus = async (task: Task) => {
    try {
      await server.server.notification({ method: 'notifications/tasks/status', params: { ...task } });
    } catch (error) {
      logger.debug(`Task ${task.taskId}: the status notification was not sent:`, error);
    }
  };

  const running = (taskId: string, signal: AbortSignal): RunningTask => ({
    taskId,
    signal,
    canRequestInput: true,
    status: () => store.get(taskId)?.status,
    update: async (status, statusMessage) => notifyStatus(store.update(taskId, status, statusMessage)),
    requestInput: (request, schema) =>
      new Promise((resolve, reject) => {
        store.enqueue(taskId, { request, resolve: resolve as (value: unknown) => void, reject, parse: (answer) => schema.parse(answer) });
      }),
  });

  const settle = (name: string, taskId: string, signal: AbortSignal, work: Promise<CallToolResult>) => {
    const live = () => {
      const status = store.get(taskId)?.status;
      return status !== undefined && !isTerminal(status) && !signal.aborted;
    };
    work
      .then(
        async (result) => {
          if (!live()) return;
          const size = sizeOver(result);
          if (size !== undefined) logger.warn(`Task ${taskId} of tool ${name} answered ${size} bytes; it got an error instead`);
          const kept = size === undefined ? result : errorResult(tooLargeMessage(`tool ${name}`, size));
          await notifyStatus(store.finish(taskId, 'completed', kept));
        },
        async (error: unknown) => {
          if (!live()) return;
          logger.error(`Task ${taskId} of tool ${name} failed:`, error);
          await notifyStatus(store.update(taskId, 'failed', String(error)));
        },
      )
      .catch((error: unknown) => logger.debug(`Task ${taskId}: could not record its end:`, error));
  };

  /** Answers a task-augmented call: validates the arguments, creates the task, starts the work. */
  const startTask = async (request: JSONRPCRequest) => {
    const params = request.params as { name: string; arguments?: unknown; task: unknown };
    const { tool, ctx } = tools.get(params.name) as Registered<unknown>;
    const args = z.object(tool.input).safeParse(params.arguments ?? {});
    if (!args.success) {
      // The text SDK v2 gives the same mistake on a plain call (v1 wrapped its own into a result).
      const problem = sdkIssues(args.error.issues);
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Input validation error: Invalid arguments for tool ${tool.name}: ${problem}`,
      );
    }
    const asked = TaskParams.safeParse(params.task);
    if (!asked.success)
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Invalid task parameters: ${describeIssues(asked.error.issues)}`);
    const ttl = tool.ttlMs ?? Math.min(asked.data.ttl ?? maxTtlMs, maxTtlMs);
    const task = store.create({ ttl, pollInterval: tool.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS });
    const signal = store.signal(task.taskId) as AbortSignal;
    settle(
      tool.name,
      task.taskId,
      signal,
      Promise.resolve().then(() => tool.run(args.data, ctx, running(task.taskId, signal))),
    );
    return { task };
  };

  /** A 2025 `tools/call` of a task tool with a `task` object (v1: `!!params.task`; a null `task` is a plain call). */
  const claims = (request: JSONRPCRequest) => {
    if (request.method !== 'tools/call') return false;
    const params = request.params as { name?: unknown; task?: unknown } | undefined;
    const asksTask = typeof params?.task === 'object' && params.task !== null;
    return asksTask && typeof params?.name === 'string' && tools.has(params.name) && !isModernEra(server);
  };

  /** The call without a task: v1's error for a 2025 client; the work, inline, for a 2026 client. */
  const plainCall = async <Ctx>(tool: AnyTaskTool<Ctx>, ctx: Ctx, args: unknown, context: ServerContext) => {
    if (servesStatelessRequest(server)) return errorResult(statelessSession(`${tool.name} (it runs as a task)`));
    if (!isModernEra(server)) return errorResult(taskRequiredText(tool.name));
    const inline: RunningTask = {
      taskId: undefined,
      signal: context.mcpReq.signal,
      canRequestInput: false,
      status: () => 'working',
      update: async () => {},
      requestInput: () => Promise.reject(new Error('Input requests need a task, and this client has no 2025-11-25 tasks')),
    };
    try {
      return await tool.run(args as never, ctx, inline);
    } catch (error) {
      if (error instanceof ToolError) return errorResult(error.message);
      return errorResult(hideUnexpected('Tool', tool.name, error, logger));
    }
  };

  return {
    store,
    attach() {
      const transport = server.server.transport;
      if (!transport || transport === attachedTo) return;
      attachedTo = transport;
      interceptRequests(transport, claims, startTask, (error) => logger.debug('A task creation answer was not sent:', error));
    },
    registerTool(tool, ctx) {
      if (tools.has(tool.name)) throw new Error(`Task tool ${tool.name} is already registered`);
      tools.set(tool.name, { tool, ctx } as Registered<unknown>);
      const registered = server.registerTool(
        tool.name,
        {
          title: tool.title,
          description: tool.description,
          inputSchema: z.object(tool.input),
          annotations: { title: tool.title, ...tool.annotations },
        },
        (args: unknown, context: ServerContext) => plainCall(tool, ctx, args, context),
      );
      // `registerTool` takes no `execution`; the listing reads this field of the registered tool.
      registered.execution = { taskSupport: 'required' };
      return registered;
    },
    close() {
      store.close();
    },
  };
}
