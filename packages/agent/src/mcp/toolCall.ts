/**
 * One `tools/call` through the SDK client, with the agent's timeout (reset by progress), progress
 * reporting, cancellation, and every failure turned into an `McpError` the model can read.
 */
import { type CallToolResult, type Client, type Progress, ProtocolError, SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import { errorMessage, McpError } from '../errors.js';
import type { AgentHost } from '../host.js';
import { errnoText, formatSeconds, stripSdkPrefix } from './messages.js';
import { callToolWithTasks, type TaskSupport } from './tasks/taskCall.js';
import type { CallOptions, ToolEntry } from './types.js';

/** A tool call's timeout when neither the server's config nor the caller sets one (the SDK's default). */
export const DEFAULT_TOOL_TIMEOUT_MS = 60_000;

export interface ServerToolCallOptions extends CallOptions {
  /** The server's `timeout` from the config; wins over `timeoutMs`. */
  serverTimeoutMs?: number;
  host?: AgentHost;
  /** The server offers tasks: the call opts in, and a task it creates is followed to its end. */
  tasks?: TaskSupport;
}

function notRunning(entry: ToolEntry, cause: unknown): McpError {
  return new McpError('TOOL_EXECUTION_FAILED', `${entry.server} is not running`, { cause });
}

/** The `McpError` for a failed call. */
function callFailure(entry: ToolEntry, error: unknown, aborted: boolean, timeoutMs: number): McpError {
  if (aborted) return new McpError('CANCELLED', `${entry.name}: cancelled`, { cause: error });
  if (error instanceof SdkError) {
    if (error.code === SdkErrorCode.RequestTimeout) {
      return new McpError('TOOL_TIMEOUT', `${entry.name}: no reply within ${formatSeconds(timeoutMs)}`, { cause: error });
    }
    if (error.code === SdkErrorCode.ConnectionClosed || error.code === SdkErrorCode.NotConnected) return notRunning(entry, error);
    if (error.code === SdkErrorCode.InputRequiredRoundsExceeded) {
      return new McpError('TOOL_EXECUTION_FAILED', `${entry.name}: the server kept asking for input; gave up after too many rounds`, {
        cause: error,
      });
    }
  }
  if (error instanceof ProtocolError) {
    return new McpError('TOOL_EXECUTION_FAILED', `${entry.name}: ${stripSdkPrefix(error.message)}`, {
      cause: error,
      details: { code: error.code, data: error.data },
    });
  }
  // The SDK's plain "Not connected": the transport is gone.
  if (error instanceof Error && error.message === 'Not connected') return notRunning(entry, error);
  const network = errnoText(error);
  if (network !== undefined) return new McpError('TOOL_EXECUTION_FAILED', `${entry.server} is not reachable: ${network}`, { cause: error });
  return new McpError('TOOL_EXECUTION_FAILED', `${entry.name}: ${errorMessage(error)}`, { cause: error });
}

/**
 * Call `entry` on `client`. The timeout (server config, else `timeoutMs`, else 60 s) restarts on
 * every progress notification; progress goes to `onProgress` and `host.onProgress`. Aborting
 * `signal` sends `notifications/cancelled` to the server.
 * Resolves with the result, `isError` ones included.
 * @throws McpError `CANCELLED`, `TOOL_TIMEOUT`, `TOOL_EXECUTION_FAILED`.
 */
export async function callServerTool(
  client: Client,
  entry: ToolEntry,
  args: Record<string, unknown>,
  options: ServerToolCallOptions = {},
): Promise<CallToolResult> {
  const timeoutMs = options.serverTimeoutMs ?? options.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS;
  const { signal, host, onProgress } = options;
  if (signal?.aborted) throw new McpError('CANCELLED', `${entry.name}: cancelled`, { cause: signal.reason });
  if (options.tasks) {
    return callToolWithTasks(options.tasks, entry, args, {
      signal,
      timeoutMs,
      onStatus: (update) => host?.onTaskStatus?.(entry.server, entry.tool, update),
    });
  }
  // A signal of our own: the SDK leaves its abort listener on the signal it is given, and would
  // send a stray cancellation for a long-finished request if the caller's signal fired later.
  const controller = new AbortController();
  const onAbort = () => controller.abort(signal?.reason);
  signal?.addEventListener('abort', onAbort, { once: true });
  const onprogress = (update: Progress) => {
    const progress: { progress: number; total?: number; message?: string } = { progress: update.progress };
    if (update.total !== undefined) progress.total = update.total;
    if (update.message !== undefined) progress.message = update.message;
    onProgress?.(progress);
    host?.onProgress?.(entry.server, entry.tool, progress);
  };
  try {
    const result = await client.callTool(
      { name: entry.tool, arguments: args },
      {
        signal: controller.signal,
        timeout: timeoutMs,
        resetTimeoutOnProgress: true,
        onprogress,
      },
    );
    return result as CallToolResult;
  } catch (error) {
    throw callFailure(entry, error, controller.signal.aborted, timeoutMs);
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
}
