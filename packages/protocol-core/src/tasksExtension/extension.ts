/**
 * The tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663) for every server of a process, shaped as the
 * SDK's draft (`new TasksExtension(store)`, `attach(server)`, `start(ctx, …)`), so it can give way to the SDK's own.
 *
 * - `attach(server)` (before connecting) declares the extension under `capabilities.extensions` (so
 *   `server/discover` lists it) and answers `tasks/get`, `tasks/update`, `tasks/cancel` from the store: a request
 *   that did not declare the extension in its `_meta` client capabilities gets -32021; an id that is unknown,
 *   expired or another owner's gets -32602 (the same text for all three).
 * - `start(extra, work)` creates the task in the store (durably: it resolves once a `tasks/get` would find it)
 *   and answers the flat `CreateTaskResult`; the work runs in this process, with a `TaskContext`.
 * - `callTool` is what `registerTools(…, { tasks })` runs for a tool defined with `task: 'optional' | 'required'`.
 * - `preflight(message)` answers -32021 for a 2026-07-28 `tools/call` of a required-task tool that did not opt in,
 *   before the SDK's `McpServer` sees it (which would turn any thrown error into an `isError` result). The runner
 *   calls it for HTTP and stdio (`ServerApp.preflight`).
 *
 * Ownership: a task belongs to whoever created it (the token's subject, else its client, else the 2025 session,
 * else `anonymousOwner`: one per extension, i.e. per process, unless given). Ids are 128 random bits.
 */
import { CallToolRequestSchema } from '@modelcontextprotocol/core';
import { type McpServer, ProtocolError, type ServerContext, type StandardSchemaV1 } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { type Logger, silentLogger } from '../logger.js';
import type { RequestContext } from '../requestContext.js';
import { errorResult } from '../results.js';
import { type Execution, startExecution, type TaskWork } from './execution.js';
import { isTerminalStatus, TASKS_EXTENSION_ID, type TaskContext, type TaskRecord, type TaskStore, type TaskSupport } from './types.js';
import {
  createTaskResult,
  detailedTask,
  isEnveloped,
  metaOptsIn,
  missingTasksCapability,
  newTaskId,
  REQUIRED_TASKS_CAPABILITY,
  requestOptsIn,
  requestOwner,
  unknownTask,
} from './wire.js';

export interface TasksExtensionOptions {
  logger?: Logger;
  /** Epoch milliseconds now (task times, expiry). Default `Date.now`. */
  now?: () => number;
  /** `ttlMs` of a task, from its creation. Default one hour. `null`: until the store evicts it. */
  ttlMs?: number | null;
  /** The `pollIntervalMs` tasks suggest. Default 1000. */
  pollIntervalMs?: number;
  /** Owner of tasks created without a token or a session. Default: one random owner per extension (process). */
  anonymousOwner?: string;
}

export interface StartOptions {
  ttlMs?: number | null;
  pollIntervalMs?: number;
  statusMessage?: string;
}

/** What a JSON-RPC error answer carries (`preflight`). */
export interface PreflightError {
  code: number;
  message: string;
  data?: unknown;
}

const TaskIdParams = z.looseObject({ taskId: z.string() });
// The SDK lifts `inputResponses` (a reserved multi-round-trip key) out of the params into `ctx.mcpReq.inputResponses`.
const UpdateParams = z.looseObject({ taskId: z.string(), inputResponses: z.record(z.string(), z.unknown()).optional() });
const DEFAULT_TTL_MS = 3_600_000;
const DEFAULT_POLL_MS = 1000;

/** An integer ≥ 1 (the wire wants integer milliseconds). */
function wholeMs(value: number): number {
  return Math.max(1, Math.round(value));
}

/** A `notifications/progress`'s params as a status message. */
function progressText(params: { progress?: unknown; total?: unknown; message?: unknown } | undefined): string {
  if (typeof params?.message === 'string' && params.message) return params.message;
  const total = typeof params?.total === 'number' ? `/${params.total}` : '';
  return `Progress ${String(params?.progress ?? '')}${total}`;
}

export class TasksExtension {
  readonly id = TASKS_EXTENSION_ID;
  readonly store: TaskStore;
  readonly #logger: Logger;
  readonly #now: () => number;
  readonly #ttlMs: number | null;
  readonly #pollMs: number;
  readonly #anonymous: string;
  readonly #running = new Map<string, Execution>();
  readonly #attached = new WeakSet<McpServer>();
  readonly #declared = new Map<string, TaskSupport>();

  constructor(store: TaskStore, options: TasksExtensionOptions = {}) {
    this.store = store;
    this.#logger = options.logger ?? silentLogger;
    this.#now = options.now ?? Date.now;
    this.#ttlMs = options.ttlMs === undefined ? DEFAULT_TTL_MS : options.ttlMs === null ? null : wholeMs(options.ttlMs);
    this.#pollMs = wholeMs(options.pollIntervalMs ?? DEFAULT_POLL_MS);
    this.#anonymous = options.anonymousOwner ?? `anonymous:${newTaskId()}`;
  }

  /** Declares the extension on `server` and answers the three `tasks/*` methods. Before connecting; idempotent. */
  attach(server: McpServer): void {
    if (this.#attached.has(server)) return;
    this.#attached.add(server);
    const inner = server.server;
    inner.registerCapabilities({ extensions: { [TASKS_EXTENSION_ID]: {} } });
    inner.setRequestHandler('tasks/get', { params: TaskIdParams }, async ({ taskId }, ctx) => {
      const task = await this.#owned(ctx, taskId, 'tasks/get');
      return detailedTask(task);
    });
    inner.setRequestHandler('tasks/update', { params: UpdateParams }, async (params, ctx) => {
      const { taskId } = params;
      await this.#owned(ctx, taskId, 'tasks/update');
      const inputResponses = (ctx.mcpReq.inputResponses ?? params.inputResponses) as Record<string, unknown> | undefined;
      if (typeof inputResponses !== 'object' || inputResponses === null || Array.isArray(inputResponses)) {
        throw new ProtocolError(-32602, 'Invalid params for tasks/update: inputResponses must be an object');
      }
      await this.store.update(taskId, (t) => {
        if (isTerminalStatus(t.status)) return undefined;
        const outstanding = { ...t.inputRequests };
        const answers = { ...t.inputResponses };
        let taken = 0;
        // Keys not outstanding (never issued, answered already) are ignored, as the spec asks.
        for (const [key, answer] of Object.entries(inputResponses)) {
          if (!(key in outstanding)) continue;
          delete outstanding[key];
          answers[key] = answer;
          taken += 1;
        }
        if (taken === 0) return undefined;
        const status = Object.keys(outstanding).length === 0 ? 'working' : 'input_required';
        return { ...t, status, inputRequests: outstanding, inputResponses: answers, lastUpdatedAt: this.#now() };
      });
      await this.#running.get(taskId)?.refresh();
      return {};
    });
    inner.setRequestHandler('tasks/cancel', { params: TaskIdParams }, async ({ taskId }, ctx) => {
      await this.#owned(ctx, taskId, 'tasks/cancel');
      const stored = await this.store.update(taskId, (t) => {
        if (isTerminalStatus(t.status)) return undefined;
        const { inputRequests: _requests, inputResponses: _responses, ...rest } = t;
        return { ...rest, status: 'cancelled', statusMessage: 'Cancelled by the client.', lastUpdatedAt: this.#now() };
      });
      if (stored?.status === 'cancelled') this.#running.get(taskId)?.abort('The client cancelled the task.');
      return {};
    });
  }

  /** Whether the request of `ctx` declared the extension (per request: nothing else counts). */
  optedIn(ctx: ServerContext): boolean {
    return requestOptsIn(ctx);
  }

  /**
   * Creates a task owned by the caller of `extra`'s request, stores it, starts `work` with its `TaskContext`,
   * and resolves with the flat `CreateTaskResult` to answer the request with. The work's result becomes the
   * task's (`completed`); a thrown `ProtocolError` makes it `failed` with that error; anything else `failed`
   * with -32603 (logged). Call only for a request that opted in (`optedIn`).
   */
  async start(ctx: ServerContext, work: TaskWork, options: StartOptions = {}): Promise<Record<string, unknown>> {
    if (!this.optedIn(ctx)) throw missingTasksCapability('Running as a task');
    const now = this.#now();
    const ttl = options.ttlMs === undefined ? this.#ttlMs : options.ttlMs === null ? null : wholeMs(options.ttlMs);
    const record: TaskRecord = {
      taskId: newTaskId(),
      owner: requestOwner(ctx, this.#anonymous),
      status: 'working',
      ...(options.statusMessage !== undefined ? { statusMessage: options.statusMessage } : {}),
      createdAt: now,
      lastUpdatedAt: now,
      ttlMs: ttl,
      pollIntervalMs: wholeMs(options.pollIntervalMs ?? this.#pollMs),
    };
    await this.store.create(record);
    const execution = startExecution(record, work, {
      store: this.store,
      logger: this.#logger,
      now: this.#now,
      onEnd: () => this.#running.delete(record.taskId),
    });
    this.#running.set(record.taskId, execution);
    return createTaskResult(record);
  }

  /** Remembers that tool `name` offers tasks (`preflight` refuses a required one to a client that did not opt in). */
  declare(name: string, support: TaskSupport): void {
    this.#declared.set(name, support);
  }

  /**
   * A tool defined with `task`: a request that opted in gets a task running `run` (with `extra.task`, progress
   * notifications as status messages, `sendRequest` as input requests); one that did not gets `run` inline
   * (`optional`) or an `isError` result saying what it needs (`required`; `preflight` answers -32021 first where
   * the runner serves).
   */
  async callTool<R>(
    name: string,
    support: TaskSupport,
    extra: RequestContext,
    run: (extra: RequestContext) => Promise<R>,
  ): Promise<R | Record<string, unknown>> {
    if (!this.optedIn(extra)) {
      if (support === 'optional') return run(extra);
      return errorResult(
        `Tool ${name} runs only as a task: the request must declare the ${TASKS_EXTENSION_ID} extension in its client capabilities (-32021).`,
      );
    }
    return this.start(extra, async (task) => (await run(taskContext(extra, task))) as Record<string, unknown>);
  }

  /**
   * For the runner, before the SDK: -32021 for a 2026-07-28 `tools/call` of a tool declared `required` whose
   * `_meta` does not declare the extension; `undefined` for anything else.
   */
  preflight(message: unknown): PreflightError | undefined {
    // Only a `tools/call` naming a tool declared `required` can be refused: anything else is let through before the
    // schema parse, which every request would otherwise pay (most of all in a fresh process, before it is optimised).
    if (!this.#mayRefuse(message)) return undefined;
    const parsed = CallToolRequestSchema.safeParse(message);
    if (!parsed.success) return undefined;
    const { name, _meta } = parsed.data.params as { name: string; _meta?: Record<string, unknown> };
    if (this.#declared.get(name) !== 'required' || !isEnveloped(_meta) || metaOptsIn(_meta)) return undefined;
    const error = missingTasksCapability(`Tool ${name}`);
    return { code: error.code, message: error.message, data: REQUIRED_TASKS_CAPABILITY };
  }

  /** Whether `message` looks like a `tools/call` of a tool declared `required` (what the parse in `preflight` then checks). */
  #mayRefuse(message: unknown): boolean {
    const m = message as { method?: unknown; params?: { name?: unknown } } | null;
    if (typeof m !== 'object' || m === null || m.method !== 'tools/call') return false;
    const name = typeof m.params === 'object' && m.params !== null ? m.params.name : undefined;
    return typeof name === 'string' && this.#declared.get(name) === 'required';
  }

  /** Stops every task running here (they stay in the store as they are; a shared store's replicas may go on). */
  close(): void {
    for (const execution of this.#running.values()) execution.abort('The server is closing.');
    this.#running.clear();
  }

  /** The task `taskId` if the caller of `ctx`'s request opted in and owns it; -32021 / -32602 otherwise. */
  async #owned(ctx: ServerContext, taskId: string, method: string): Promise<TaskRecord> {
    if (!requestOptsIn(ctx)) throw missingTasksCapability(method);
    const task = await this.store.get(taskId);
    if (!task || task.owner !== requestOwner(ctx, this.#anonymous)) throw unknownTask();
    return task;
  }
}

/** The context a tool's handler sees when it runs as a task: the request's, with the task's signal and channels. */
function taskContext(ctx: RequestContext, task: TaskContext): RequestContext {
  // `send(request, options)` (typed by method) or `send(request, resultSchema, options)`.
  const send = async (request: { method: string; params?: Record<string, unknown> }, schema?: StandardSchemaV1 | object) => {
    const answer = await task.input({ method: request.method, params: request.params ?? {} });
    if (!schema || !('~standard' in schema)) return answer;
    const checked = await schema['~standard'].validate(answer);
    if (checked.issues) throw new Error(`The client's answer to ${request.method} is not valid: ${checked.issues[0]?.message ?? ''}`);
    return checked.value;
  };
  const { closeSSE: _gone, ...http } = (ctx.http ?? {}) as NonNullable<RequestContext['http']>;
  return {
    ...ctx,
    ...(ctx.http ? { http } : {}),
    task,
    mcpReq: {
      ...ctx.mcpReq,
      signal: task.signal,
      // A progress token, so the tool's progress reporter reports (to the task's status message).
      _meta: { ...ctx.mcpReq._meta, progressToken: `task:${task.taskId}` },
      notify: async (notification) => {
        if (notification.method === 'notifications/progress') task.progress(progressText(notification.params as never));
      },
      // The request is answered already: a log line has nowhere to go.
      log: async () => {},
      send: send as RequestContext['mcpReq']['send'],
      elicitInput: (params) => send({ method: 'elicitation/create', params: params as Record<string, unknown> }) as never,
      requestSampling: (params) => send({ method: 'sampling/createMessage', params: params as Record<string, unknown> }) as never,
    },
  };
}
