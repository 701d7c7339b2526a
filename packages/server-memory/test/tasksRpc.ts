/**
 * Raw 2026-07-28 JSON-RPC over Streamable HTTP for the tasks extension's tests (the SDK's clients have no tasks
 * API): one request with the per-request envelope, declaring the extension (`optIn`) or not, and the routing headers.
 * The request itself is `@mcpkit/test-utils/tasks`'s; what memory's tests add: waiting for a task's end, and a
 * `CallToolResult` to compare with the inline one.
 */
export { type RpcAnswer, rpc, TASKS } from '@mcpkit/test-utils/tasks';

import { rpc } from '@mcpkit/test-utils/tasks';

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
