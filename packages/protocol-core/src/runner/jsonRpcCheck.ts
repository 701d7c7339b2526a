/**
 * What JSON-RPC 2.0 answers a message that is JSON but not a valid request, notification or response:
 * -32600 Invalid Request, with the message's id when it has a valid one, else `id: null`. The SDK's
 * transports leave such input unanswered (stdio), answer -32700 without the id (Streamable HTTP) or
 * answer plain text (SSE); the runner's transports answer it with this.
 */
import { JSONRPCMessageSchema } from '@modelcontextprotocol/core';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { ErrorCode } from '../errors.js';

export type JsonRpcId = string | number | null;

export interface JsonRpcProblem {
  id: JsonRpcId;
  code: number;
  message: string;
  /** The message was a response (a client's answer to a server request): there is nobody to answer. */
  response: boolean;
}

function validId(id: unknown): id is string | number {
  return typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id));
}

/** Why `value` is not a valid message, in a few words; undefined when the checks here find nothing. */
function describe(value: Record<string, unknown>): string | undefined {
  if (value.jsonrpc !== '2.0') return 'jsonrpc must be "2.0"';
  if ('id' in value && !validId(value.id)) return 'id must be a string or an integer';
  if (!('method' in value)) return 'result' in value || 'error' in value ? undefined : 'a request needs a method';
  if (typeof value.method !== 'string') return 'method must be a string';
  const { params } = value;
  if ('params' in value && (typeof params !== 'object' || params === null || Array.isArray(params))) return 'params must be an object';
  return undefined;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Whether a request's or notification's `params._meta` is one the SDK's `RequestMetaSchema` certainly
 * accepts: absent, or an object whose `progressToken` (if any) is a string or a safe integer and whose
 * related-task entry (if any) has a string `taskId`. Other keys pass through as the schema's own do.
 */
export function plainMeta(meta: unknown): boolean {
  if (meta === undefined) return true;
  if (!isPlainObject(meta)) return false;
  const token = meta.progressToken;
  if (token !== undefined && typeof token !== 'string' && !Number.isSafeInteger(token)) return false;
  const task = meta['io.modelcontextprotocol/related-task'];
  return task === undefined || (isPlainObject(task) && typeof task.taskId === 'string');
}

/**
 * The fast path of `checkMessage`: whether `value` (which `describe` found nothing wrong with) is certainly
 * a request or notification the SDK's `JSONRPCMessageSchema` accepts, as it is. Only the four keys JSON-RPC
 * defines, and `params._meta` as `plainMeta` says. Anything else (responses, extra keys) takes the schema.
 */
function plainRequest(value: Record<string, unknown>): boolean {
  let keys = 0;
  for (const key in value) {
    if (key !== 'jsonrpc' && key !== 'id' && key !== 'method' && key !== 'params') return false;
    keys++;
  }
  if (keys > 4 || typeof value.method !== 'string') return false;
  const { params } = value;
  return params === undefined || (isPlainObject(params) && plainMeta(params._meta));
}

const invalid = (id: JsonRpcId, detail: string, response = false): JsonRpcProblem => ({
  id,
  code: ErrorCode.InvalidRequest,
  message: `Invalid Request: ${detail}`,
  response,
});

/** One message (an element of a batch, or a whole line) as the SDK parses it, or its problem. */
export function checkMessage(
  value: unknown,
): { message: JSONRPCMessage; problem?: undefined } | { message?: undefined; problem: JsonRpcProblem } {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { problem: invalid(null, 'a message must be a JSON object') };
  const record = value as Record<string, unknown>;
  const id = validId(record.id) ? record.id : null;
  const response = !('method' in record) && ('result' in record || 'error' in record);
  const detail = describe(record);
  if (detail) return { problem: invalid(id, detail, response) };
  // Most traffic: checked by hand, as the schema would (it would return an equal copy).
  if (plainRequest(record)) return { message: record as JSONRPCMessage };
  const parsed = JSONRPCMessageSchema.safeParse(record);
  if (parsed.success) return { message: parsed.data };
  return { problem: invalid(id, response ? 'not a JSON-RPC 2.0 response' : 'not a JSON-RPC 2.0 request or notification', response) };
}

/** The problem with a whole HTTP body (a message or a batch): its first bad message, or an empty batch. */
export function bodyProblem(value: unknown): JsonRpcProblem | undefined {
  if (!Array.isArray(value)) return checkMessage(value).problem;
  if (value.length === 0) return invalid(null, 'an empty batch');
  for (const entry of value) {
    const { problem } = checkMessage(entry);
    if (problem) return problem;
  }
  return undefined;
}
