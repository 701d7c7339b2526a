/**
 * Raw 2026-07-28 JSON-RPC over Streamable HTTP for the tasks extension (`io.modelcontextprotocol/tasks`), as
 * protocol-core's own tests speak it: the SDK v2 client has no tasks API. `rpc` sends one request with the
 * envelope (opted in or not) and the routing headers; `untilTerminal` polls `tasks/get` until the task ends.
 */

export const TASKS = 'io.modelcontextprotocol/tasks';

/** The 2026-07-28 envelope, with or without the extension in the client capabilities (beside `capabilities`). */
export function envelope(
  optIn: boolean,
  extra: Record<string, unknown> = {},
  capabilities: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'tasks-test', version: '0.0.0' },
    'io.modelcontextprotocol/clientCapabilities': optIn ? { ...capabilities, extensions: { [TASKS]: {} } } : capabilities,
    ...extra,
  };
}

export interface RpcAnswer {
  status: number;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
}

let nextId = 1;

/** One raw 2026-07-28 request over Streamable HTTP, with the routing headers (`Mcp-Method`, `Mcp-Name`). */
export async function rpc(
  endpoint: string,
  method: string,
  params: Record<string, unknown> = {},
  {
    optIn = true,
    headers = {},
    capabilities = {},
  }: { optIn?: boolean; headers?: Record<string, string>; capabilities?: Record<string, unknown> } = {},
): Promise<RpcAnswer> {
  const name = typeof params.taskId === 'string' ? params.taskId : typeof params.name === 'string' ? params.name : undefined;
  const response = await fetch(endpoint, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      ...(name !== undefined ? { 'mcp-name': name } : {}),
      ...headers,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: nextId++,
      method,
      params: { ...params, _meta: envelope(optIn, params._meta as never, capabilities) },
    }),
  });
  const text = await response.text();
  const json = response.headers.get('content-type')?.includes('text/event-stream')
    ? text
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => JSON.parse(line.slice(5)))
        .find((message) => 'result' in message || 'error' in message)
    : JSON.parse(text);
  return { status: response.status, ...(json.result ? { result: json.result } : {}), ...(json.error ? { error: json.error } : {}) };
}

const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

/**
 * `tasks/get` of `taskId` until its status is terminal (or `until` says so): a wait on the task's state, polled every
 * `intervalMs` (short: it only keeps the polls from crowding out the work they wait for), bounded by `maxPolls`.
 * Answers the last `tasks/get` result.
 */
export async function untilTerminal(
  endpoint: string,
  taskId: string,
  {
    until = (task) => TERMINAL.has(String(task.status)),
    intervalMs = 20,
    maxPolls = 3000,
  }: { until?: (task: Record<string, unknown>) => boolean; intervalMs?: number; maxPolls?: number } = {},
): Promise<Record<string, unknown>> {
  for (let poll = 0; poll < maxPolls; poll++) {
    const { result, error } = await rpc(endpoint, 'tasks/get', { taskId });
    if (error) throw new Error(`tasks/get ${taskId}: ${error.code} ${error.message}`);
    if (result && until(result)) return result;
    await new Promise<void>((resolve) => setTimeout(resolve, intervalMs));
  }
  throw new Error(`task ${taskId} did not reach the awaited state in ${maxPolls} polls`);
}
