/** The extension's wire: `CreateTaskResult`, `DetailedTask`, the opt-in, the owner and the errors. */
import { CLIENT_CAPABILITIES_META_KEY, PROTOCOL_VERSION_META_KEY, ProtocolError, type ServerContext } from '@modelcontextprotocol/server';
import { MISSING_REQUIRED_CLIENT_CAPABILITY, TASKS_EXTENSION_ID, type TaskError, type TaskRecord } from './types.js';

/** The `data` of a -32021 naming this extension. */
export const REQUIRED_TASKS_CAPABILITY = { requiredCapabilities: { extensions: { [TASKS_EXTENSION_ID]: {} } } } as const;

export function missingTasksCapability(what: string): ProtocolError {
  return new ProtocolError(
    MISSING_REQUIRED_CLIENT_CAPABILITY,
    `Missing required client capability: ${what} needs the ${TASKS_EXTENSION_ID} extension declared in the request's client capabilities`,
    REQUIRED_TASKS_CAPABILITY,
  );
}

/** -32602 for an id that is unknown, expired, or another owner's (all three read the same). */
export function unknownTask(): ProtocolError {
  return new ProtocolError(-32602, 'Failed to retrieve task: Task not found');
}

type Meta = Record<string, unknown> | undefined;

function declares(meta: Meta): boolean {
  const caps = meta?.[CLIENT_CAPABILITIES_META_KEY] as { extensions?: Record<string, unknown> } | undefined;
  const ext = caps?.extensions;
  return typeof ext === 'object' && ext !== null && ext[TASKS_EXTENSION_ID] !== undefined && ext[TASKS_EXTENSION_ID] !== null;
}

/** Whether a request's `_meta` declares the extension in its per-request client capabilities (the only opt-in). */
export function metaOptsIn(meta: Meta): boolean {
  return declares(meta);
}

/** Whether the request `ctx` belongs to opted in (its envelope, as the SDK parsed it, or its raw `_meta`). */
export function requestOptsIn(ctx: ServerContext): boolean {
  return declares(ctx.mcpReq.envelope as Meta) || declares(ctx.mcpReq._meta as Meta);
}

/** Whether a raw message carries the 2026-07-28 per-request envelope (only those requests are ours to gate). */
export function isEnveloped(meta: Meta): boolean {
  return typeof meta?.[PROTOCOL_VERSION_META_KEY] === 'string';
}

/**
 * Whose request it is: the OAuth subject (else its client), else the 2025-era session, else `anonymous` (the
 * extension's owner for unauthenticated requests without a session: a stdio connection, stateless HTTP).
 */
export function requestOwner(ctx: ServerContext, anonymous: string): string {
  const auth = ctx.http?.authInfo;
  if (auth) {
    const subject = (auth.extra as { subject?: unknown } | undefined)?.subject;
    return typeof subject === 'string' && subject ? `sub:${subject}` : `client:${auth.clientId ?? ''}`;
  }
  if (ctx.sessionId) return `session:${ctx.sessionId}`;
  return anonymous;
}

/** 128 random bits, base64url (Web Crypto: no `node:crypto` load at start). */
export function newTaskId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Buffer.from(bytes).toString('base64url');
}

const iso = (ms: number) => new Date(ms).toISOString();

/** The `Task` fields every wire shape carries. */
function base(task: TaskRecord): Record<string, unknown> {
  return {
    taskId: task.taskId,
    status: task.status,
    ...(task.statusMessage !== undefined ? { statusMessage: task.statusMessage } : {}),
    createdAt: iso(task.createdAt),
    lastUpdatedAt: iso(task.lastUpdatedAt),
    ttlMs: task.ttlMs,
    pollIntervalMs: task.pollIntervalMs,
  };
}

/** The flat `CreateTaskResult` (`resultType: "task"`), answered in place of the tool's result. */
export function createTaskResult(task: TaskRecord): Record<string, unknown> {
  return { resultType: 'task', ...base(task) };
}

/** The `DetailedTask` `tasks/get` answers: the result, the error or the outstanding requests inlined. */
export function detailedTask(task: TaskRecord): Record<string, unknown> {
  const detail = base(task);
  if (task.status === 'completed' && task.result) detail.result = task.result;
  if (task.status === 'failed') detail.error = task.error ?? { code: -32603, message: task.statusMessage ?? 'Task failed' };
  if (task.status === 'input_required') detail.inputRequests = task.inputRequests ?? {};
  return detail;
}

/** A thrown error as the JSON-RPC error a `failed` task inlines (codes kept, anything else -32603 without internals). */
export function taskError(error: unknown): TaskError {
  if (error instanceof ProtocolError)
    return { code: error.code, message: error.message, ...(error.data !== undefined ? { data: error.data } : {}) };
  return { code: -32603, message: 'The task failed unexpectedly; the server log has the details.' };
}
