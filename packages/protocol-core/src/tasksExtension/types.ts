/**
 * The tasks extension's vocabulary (`io.modelcontextprotocol/tasks`, SEP-2663, ext-tasks `2026-07-28`): what a
 * store keeps of a task, and what a tool running as a task sees. Wire shapes are built in `wire.ts`.
 */

export const TASKS_EXTENSION_ID = 'io.modelcontextprotocol/tasks';
/** JSON-RPC code of "Missing Required Client Capability" (SEP-2575). */
export const MISSING_REQUIRED_CLIENT_CAPABILITY = -32021;

export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';
/** How a tool offers tasks: `optional` runs inline for a client that did not opt in, `required` refuses it (-32021). */
export type TaskSupport = 'optional' | 'required';

/** A server-to-client request surfaced in `inputRequests` (`elicitation/create`, `sampling/createMessage`, …). */
export interface TaskInputRequest {
  method: string;
  params: Record<string, unknown>;
}

/** A JSON-RPC error, as a `failed` task inlines it. */
export interface TaskError {
  code: number;
  message: string;
  data?: unknown;
}

/** One task as a store keeps it. Times are epoch milliseconds (ISO strings on the wire). */
export interface TaskRecord {
  /** Unguessable (128 random bits, base64url). */
  taskId: string;
  /** Whose task it is (`sub:<subject>`, `client:<id>`, `session:<id>`, or the extension's anonymous owner). */
  owner: string;
  status: TaskStatus;
  statusMessage?: string;
  createdAt: number;
  lastUpdatedAt: number;
  /** From `createdAt`; `null`: kept until the store's own bound evicts it. */
  ttlMs: number | null;
  pollIntervalMs: number;
  /** `completed`: the tool's result. */
  result?: Record<string, unknown>;
  /** `failed`: the JSON-RPC error. */
  error?: TaskError;
  /** Outstanding input requests, by key (unique over the task's life). */
  inputRequests?: Record<string, TaskInputRequest>;
  /** Answers received for keys that were outstanding, not yet taken by the running work. */
  inputResponses?: Record<string, unknown>;
}

/** A change to a task: the new record, or `undefined` to leave it as it is. */
export type TaskChange = (task: TaskRecord) => TaskRecord | undefined;

/**
 * Where tasks live. `createMemoryTaskStore` (one process) or `createPostgresTaskStore`
 * (`@mcpkit/protocol-core/tasks-postgres`, replicas answering each other's `tasks/get`).
 */
export interface TaskStore {
  /** Whether other processes share it (then running work polls it for cancellations and answers). */
  readonly shared: boolean;
  /** Stores a new task; resolves once a `get` of it from anywhere would find it (durable). */
  create(task: TaskRecord): Promise<void>;
  /** The task, or `undefined` when unknown, expired or evicted. */
  get(taskId: string): Promise<TaskRecord | undefined>;
  /** Applies `change` atomically; resolves with the stored record (changed or not), `undefined` when there is none. */
  update(taskId: string, change: TaskChange): Promise<TaskRecord | undefined>;
  close?(): Promise<void>;
}

/** What work running as a task can do (a tool reads it as `extra.task`). */
export interface TaskContext {
  readonly taskId: string;
  /** Aborted when the client cancels the task (`tasks/cancel`), it expires, or the extension closes. */
  readonly signal: AbortSignal;
  /** Sets the task's `statusMessage` (its status stays `working`); writes coalesce, the latest message wins. */
  progress(message: string): void;
  /**
   * Asks the client (an elicitation, a sampling request): the task is `input_required` with this request in
   * `inputRequests` until the client answers it with `tasks/update`; resolves with the answer (e.g. an `ElicitResult`).
   * Several asked at once are outstanding together. Rejects when the task is cancelled.
   */
  input(request: TaskInputRequest): Promise<unknown>;
}

const TERMINAL: ReadonlySet<TaskStatus> = new Set(['completed', 'failed', 'cancelled']);

export function isTerminalStatus(status: TaskStatus): boolean {
  return TERMINAL.has(status);
}

/** Whether `task` has outlived its ttl at `now`. */
export function isExpired(task: Pick<TaskRecord, 'createdAt' | 'ttlMs'>, now: number): boolean {
  return task.ttlMs !== null && now >= task.createdAt + task.ttlMs;
}
