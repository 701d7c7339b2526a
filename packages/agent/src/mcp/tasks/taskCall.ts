/**
 * A `tools/call` to a server that offers the tasks extension (SEP-2663, `io.modelcontextprotocol/tasks`,
 * advertised in `server/discover` under `capabilities.extensions`). The call carries the per-request
 * opt-in (`_meta` `io.modelcontextprotocol/clientCapabilities.extensions`); the server answers with the
 * tool's result, an MRTR `input_required` (fulfilled and the call repeated, as the SDK does), or a
 * `CreateTaskResult`. A task is polled with `tasks/get` at the server's `pollIntervalMs`; its status
 * goes to `onStatus`; an `input_required` task's requests are answered through the same host paths as
 * elicitation (form, sampling approval, roots) and sent with `tasks/update`, each key once; the
 * result or error inlined in the terminal `tasks/get` ends the call. Aborting sends `tasks/cancel`.
 */
import {
  type CallToolResult,
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  type Client,
  PROTOCOL_VERSION_META_KEY,
} from '@modelcontextprotocol/client';
import { errorMessage, McpError } from '../../errors.js';
import { answerServerRequest, type ClientServices, clientCapabilities } from '../clientHandlers.js';
import { formatSeconds, stripSdkPrefix } from '../messages.js';
import type { ToolEntry } from '../types.js';
import { type RawChannel, RawRequestError, RawRequestTimeout } from './channel.js';
import type { TaskClock } from './clock.js';

export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
/** When a task names no `pollIntervalMs`. */
export const DEFAULT_POLL_INTERVAL_MS = 1_000;
/** Never poll faster than this, whatever the server says (a hostile 0 would spin). */
export const MIN_POLL_INTERVAL_MS = 100;
/** Nor slower than this (a task that says an hour still gets looked at). */
export const MAX_POLL_INTERVAL_MS = 60_000;
/** A task is given up after this long, or after its `ttlMs`, whichever comes first. */
const MAX_TASK_MS = 24 * 60 * 60_000;
/** MRTR rounds on the call before a task exists (the SDK's bound too). */
const MAX_INPUT_ROUNDS = 10;
/** Input requests one task may ask, over its life. */
const MAX_TASK_INPUTS = 100;
/** How long `tasks/cancel` may take after an abort. */
const CANCEL_TIMEOUT_MS = 5_000;

export type TaskState = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

/** What the user is shown of a running task. */
export interface TaskStatusUpdate {
  taskId: string;
  status: TaskState;
  statusMessage?: string;
}

/** A server's tasks support: the raw channel, the envelope its requests carry, the host paths, the clock. */
export interface TaskSupport {
  channel: RawChannel;
  services: ClientServices;
  clock: TaskClock;
  /** `_meta` for every tasks request: protocol version, client info, capabilities with the extension. */
  envelope(): Record<string, unknown>;
}

export interface TaskCallOptions {
  signal?: AbortSignal;
  /** Per request (the call, each `tasks/get`, `tasks/update`). */
  timeoutMs: number;
  onStatus?: (update: TaskStatusUpdate) => void;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Does this connected client's server offer tasks (2026-07-28, the extension in `server/discover`)? */
export function serverOffersTasks(client: Client): boolean {
  if (client.getProtocolEra() !== 'modern') return false;
  const extensions = (client.getServerCapabilities() as { extensions?: unknown } | undefined)?.extensions;
  return isObject(extensions) && isObject(extensions[TASKS_EXTENSION]);
}

/** The `_meta` envelope of a 2026-07-28 request from this client, opted in to tasks. */
export function taskEnvelope(client: Client, services: ClientServices, clientVersion: string): Record<string, unknown> {
  return {
    [PROTOCOL_VERSION_META_KEY]: client.getNegotiatedProtocolVersion(),
    [CLIENT_INFO_META_KEY]: { name: 'mcpkit-agent', version: clientVersion },
    [CLIENT_CAPABILITIES_META_KEY]: { ...clientCapabilities(services), extensions: { [TASKS_EXTENSION]: {} } },
  };
}

/** The server's interval, made sane: an integer within [MIN, MAX], the default when absent or not a number. */
function pollInterval(value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) return DEFAULT_POLL_INTERVAL_MS;
  return Math.min(MAX_POLL_INTERVAL_MS, Math.max(MIN_POLL_INTERVAL_MS, Math.round(value)));
}

const STATES = new Set<string>(['working', 'input_required', 'completed', 'failed', 'cancelled']);

function taskState(value: unknown): TaskState | undefined {
  return typeof value === 'string' && STATES.has(value) ? (value as TaskState) : undefined;
}

function short(text: string, max = 300): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max)}...` : line;
}

/** A failure of one request, as the model reads it. */
function requestFailure(entry: ToolEntry, what: string, error: unknown, timeoutMs: number): McpError {
  if (error instanceof RawRequestTimeout) {
    return new McpError('TOOL_TIMEOUT', `${entry.name}: ${what}: no reply within ${formatSeconds(timeoutMs)}`, { cause: error });
  }
  if (error instanceof RawRequestError) {
    return new McpError('TOOL_EXECUTION_FAILED', `${entry.name}: ${what}: ${short(stripSdkPrefix(error.message))}`, {
      cause: error,
      details: { code: error.code, data: error.data },
    });
  }
  return new McpError('TOOL_EXECUTION_FAILED', `${entry.name}: ${what}: ${short(errorMessage(error))}`, { cause: error });
}

function asToolResult(entry: ToolEntry, raw: unknown, what: string): CallToolResult {
  if (!isObject(raw) || !Array.isArray(raw.content)) {
    throw new McpError('TOOL_EXECUTION_FAILED', `${entry.name}: ${what} is not a tool result (no content array)`);
  }
  const { resultType: _resultType, ...result } = raw;
  return result as CallToolResult;
}

/** Answers each of `requests` (keyed) through the host; the answers keyed alike. */
async function answerAll(
  support: TaskSupport,
  requests: Record<string, unknown>,
  keys: readonly string[],
  signal: AbortSignal | undefined,
): Promise<Record<string, unknown>> {
  const answers: Record<string, unknown> = {};
  for (const key of keys) {
    const request = requests[key];
    if (!isObject(request) || typeof request.method !== 'string') {
      throw new McpError('TOOL_EXECUTION_FAILED', `the server's input request ${JSON.stringify(key.slice(0, 60))} has no method`);
    }
    const params = isObject(request.params) ? request.params : undefined;
    answers[key] = await answerServerRequest(support.services, request.method, params, signal);
  }
  return answers;
}

/**
 * Call `entry` opted in to tasks and see it to its end.
 * @throws McpError `CANCELLED` (after `tasks/cancel`), `TOOL_TIMEOUT`, `TOOL_EXECUTION_FAILED`.
 */
export async function callToolWithTasks(
  support: TaskSupport,
  entry: ToolEntry,
  args: Record<string, unknown>,
  options: TaskCallOptions,
): Promise<CallToolResult> {
  const { signal, timeoutMs } = options;
  const cancelled = () => new McpError('CANCELLED', `${entry.name}: cancelled`, { cause: signal?.reason });
  const send = async (method: string, params: Record<string, unknown>, what: string) => {
    try {
      return await support.channel.request(method, { ...params, _meta: support.envelope() }, { signal, timeoutMs });
    } catch (error) {
      if (signal?.aborted) throw cancelled();
      throw requestFailure(entry, what, error, timeoutMs);
    }
  };

  let extra: Record<string, unknown> = {};
  for (let round = 0; ; round++) {
    const answer = await send('tools/call', { name: entry.tool, arguments: args, ...extra }, 'the call failed');
    const resultType = answer.resultType;
    if (resultType === 'task') return followTask(support, entry, answer, options, send);
    if (resultType === 'input_required') {
      if (round >= MAX_INPUT_ROUNDS) {
        throw new McpError('TOOL_EXECUTION_FAILED', `${entry.name}: the server kept asking for input; gave up after too many rounds`);
      }
      const requests = isObject(answer.inputRequests) ? answer.inputRequests : {};
      const keys = Object.keys(requests);
      const requestState = typeof answer.requestState === 'string' ? answer.requestState : undefined;
      if (keys.length === 0 && requestState === undefined) {
        throw new McpError('TOOL_EXECUTION_FAILED', `${entry.name}: input_required with neither inputRequests nor requestState`);
      }
      const inputResponses = await answerOrFail(entry, () => answerAll(support, requests, keys, signal), signal);
      extra = { ...(keys.length > 0 ? { inputResponses } : {}), ...(requestState !== undefined ? { requestState } : {}) };
      continue;
    }
    if (resultType === 'complete' || resultType === undefined) return asToolResult(entry, answer, 'the answer');
    throw new McpError(
      'TOOL_EXECUTION_FAILED',
      `${entry.name}: unsupported result type ${JSON.stringify(String(resultType).slice(0, 40))}`,
    );
  }
}

/** Runs `answer`; a failure to answer (the user's form failed, sampling refused) is the call's failure. */
async function answerOrFail<T>(entry: ToolEntry, answer: () => Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  try {
    return await answer();
  } catch (error) {
    if (signal?.aborted) throw new McpError('CANCELLED', `${entry.name}: cancelled`, { cause: signal.reason });
    if (error instanceof McpError) throw error;
    throw new McpError('TOOL_EXECUTION_FAILED', `${entry.name}: ${short(stripSdkPrefix(errorMessage(error)))}`, { cause: error });
  }
}

type Send = (method: string, params: Record<string, unknown>, what: string) => Promise<Record<string, unknown>>;

/** Polls the task until it ends; answers its input requests; cancels it when the call is aborted or fails here. */
async function followTask(
  support: TaskSupport,
  entry: ToolEntry,
  created: Record<string, unknown>,
  options: TaskCallOptions,
  send: Send,
): Promise<CallToolResult> {
  const { signal } = options;
  const taskId = created.taskId;
  if (typeof taskId !== 'string' || taskId.length === 0 || taskId.length > 1024) {
    throw new McpError('TOOL_EXECUTION_FAILED', `${entry.name}: the server created a task without a usable taskId`);
  }
  const { clock } = support;
  const started = clock.now();
  const ttl = typeof created.ttlMs === 'number' && Number.isFinite(created.ttlMs) && created.ttlMs > 0 ? created.ttlMs : undefined;
  const limit = Math.min(ttl ?? MAX_TASK_MS, MAX_TASK_MS);
  const answered = new Set<string>();
  let shown: string | undefined;
  const show = (task: Record<string, unknown>) => {
    const status = taskState(task.status);
    if (!status) return;
    const statusMessage = typeof task.statusMessage === 'string' ? short(task.statusMessage, 200) : undefined;
    const key = `${status}\u0000${statusMessage ?? ''}`;
    if (key === shown) return;
    shown = key;
    options.onStatus?.({ taskId, status, ...(statusMessage !== undefined ? { statusMessage } : {}) });
  };
  const cancel = async () => {
    try {
      await support.channel.request('tasks/cancel', { taskId, _meta: support.envelope() }, { timeoutMs: CANCEL_TIMEOUT_MS });
    } catch {
      // Cooperative and best effort: the user asked to stop, and stops here whatever the server says.
    }
  };

  let task = created;
  try {
    for (;;) {
      show(task);
      const status = taskState(task.status);
      if (status === 'completed') return asToolResult(entry, task.result, 'the task result');
      if (status === 'failed') {
        const error = isObject(task.error) ? task.error : {};
        const message =
          typeof error.message === 'string' ? error.message : typeof task.statusMessage === 'string' ? task.statusMessage : 'failed';
        throw new McpError('TOOL_EXECUTION_FAILED', `${entry.name}: the task failed: ${short(stripSdkPrefix(message))}`, {
          details: { code: error.code, data: error.data },
        });
      }
      if (status === 'cancelled') throw new McpError('TOOL_EXECUTION_FAILED', `${entry.name}: the server cancelled the task`);
      if (status === 'input_required') {
        const requests = isObject(task.inputRequests) ? task.inputRequests : {};
        const fresh = Object.keys(requests).filter((key) => !answered.has(key));
        if (fresh.length > 0) {
          if (answered.size + fresh.length > MAX_TASK_INPUTS) {
            throw new McpError('TOOL_EXECUTION_FAILED', `${entry.name}: the task asked for input more than ${MAX_TASK_INPUTS} times`);
          }
          for (const key of fresh) answered.add(key);
          const inputResponses = await answerOrFail(entry, () => answerAll(support, requests, fresh, signal), signal);
          await send('tasks/update', { taskId, inputResponses }, 'tasks/update failed');
        }
      }
      if (clock.now() - started > limit) {
        throw new McpError('TOOL_TIMEOUT', `${entry.name}: the task did not finish within ${formatSeconds(limit)}`);
      }
      try {
        await clock.sleep(pollInterval(task.pollIntervalMs), signal);
      } catch {
        throw new McpError('CANCELLED', `${entry.name}: cancelled`, { cause: signal?.reason });
      }
      task = await send('tasks/get', { taskId }, 'tasks/get failed');
      if (taskState(task.status) === undefined) {
        throw new McpError('TOOL_EXECUTION_FAILED', `${entry.name}: tasks/get answered without a known status`);
      }
    }
  } catch (error) {
    // Anything that ends the call before the task ended: stop the work on the server too.
    const status = taskState(task.status);
    if (status !== 'completed' && status !== 'failed' && status !== 'cancelled') await cancel();
    throw error;
  }
}
