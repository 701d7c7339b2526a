/**
 * Raw 2026-07-28 JSON-RPC over Streamable HTTP for the tasks extension's tests (the SDK's clients have no tasks
 * API): one request with the per-request envelope, declaring the extension (`optIn`) or not, and the routing headers.
 * Local to memory's tests until protocol-core's test utilities offer one.
 */
export const TASKS = 'io.modelcontextprotocol/tasks';

export interface RpcAnswer {
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
}

let nextId = 1;

export async function rpc(
  endpoint: string,
  method: string,
  params: Record<string, unknown> = {},
  { optIn = true, headers = {} }: { optIn?: boolean; headers?: Record<string, string> } = {},
): Promise<RpcAnswer> {
  const name = typeof params.taskId === 'string' ? params.taskId : typeof params.name === 'string' ? params.name : undefined;
  const capabilities = optIn ? { extensions: { [TASKS]: {} } } : {};
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
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': { name: 'memory-tasks-test', version: '0.0.0' },
          'io.modelcontextprotocol/clientCapabilities': capabilities,
        },
      },
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
  return { ...(json.result ? { result: json.result } : {}), ...(json.error ? { error: json.error } : {}) };
}

/** Polls `tasks/get` on `endpoint` until the task is terminal; its last answer. */
export async function settled(endpoint: string, taskId: string, headers: Record<string, string> = {}): Promise<Record<string, unknown>> {
  for (;;) {
    const { result, error } = await rpc(endpoint, 'tasks/get', { taskId }, { headers });
    if (!result) throw new Error(`tasks/get ${taskId}: ${JSON.stringify(error)}`);
    if (result.status !== 'working' && result.status !== 'input_required') return result;
  }
}

/** A `CallToolResult` without what the 2026-07-28 wire adds to any result (`resultType`, the `_meta` server info). */
export function toolResult(result: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (!result) return result;
  const { resultType: _type, _meta: _wire, ...rest } = result;
  return rest;
}
