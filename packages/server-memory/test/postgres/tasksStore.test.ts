/**
 * The tasks extension's PostgreSQL store (`@mcpkit/protocol-core/tasks-postgres`) on the run's real PostgreSQL:
 * two "replicas" (each its own HTTP runner, extension and pool) share one table, so a task one starts is answered
 * by the other (`tasks/get`, `tasks/update`, `tasks/cancel`), the work on the first sees what reached the second,
 * and expiry follows the injected clock. Lives here because memory already has PostgreSQL for its tests.
 */
import { randomUUID } from 'node:crypto';
import { createMcpServer, defineTool, registerTools, type ServerApp, textResult } from '@mcpkit/protocol-core';
import { TasksExtension } from '@mcpkit/protocol-core/tasks';
import { createPostgresTaskStore, type PostgresTaskStore } from '@mcpkit/protocol-core/tasks-postgres';
import { type HttpFixture, startHttp } from '@mcpkit/protocol-core/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresUrl } from './fixture.js';

const TASKS = 'io.modelcontextprotocol/tasks';
const ANNOTATIONS = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
const url = postgresUrl();
const table = `tasks_${randomUUID().replaceAll('-', '')}`;
const clock = { now: Date.parse('2026-12-01T10:00:00Z') };
const seen: string[] = [];

interface Replica {
  http: HttpFixture;
  store: PostgresTaskStore;
  pool: pg.Pool;
}

function app(tasks: TasksExtension): ServerApp {
  const wait = defineTool({
    name: 'wait_for_answer',
    title: 'Wait for an answer',
    description: 'Asks once, then waits for the answer or a cancellation',
    input: {},
    annotations: ANNOTATIONS,
    task: 'required',
    handler: async (_args, _ctx: unknown, extra) => {
      try {
        const answer = await extra.task!.input({
          method: 'elicitation/create',
          params: { mode: 'form', message: 'Go?', requestedSchema: { type: 'object', properties: {} } },
        });
        return textResult(`answered ${JSON.stringify(answer)}`);
      } catch (error) {
        seen.push(`aborted ${extra.task!.taskId}`);
        throw error;
      }
    },
  });
  return {
    createServer: () => {
      const server = createMcpServer({ name: 'tasks-pg', version: '0.0.0' });
      tasks.attach(server);
      registerTools(server, {}, [wait], { tasks });
      return server;
    },
    preflight: (message) => tasks.preflight(message),
  };
}

async function replica(): Promise<Replica> {
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  const store = await createPostgresTaskStore({ pool, table, now: () => clock.now });
  // Replicas agree on who an unauthenticated caller is; they poll the row every 20 ms for what reached the other.
  const tasks = new TasksExtension(store, { now: () => clock.now, anonymousOwner: 'anonymous:test', pollIntervalMs: 20, ttlMs: 60_000 });
  return { http: await startHttp(app(tasks)), store, pool };
}

let nextId = 1;
async function rpc(on: Replica, method: string, params: Record<string, unknown>) {
  const name = (params.taskId ?? params.name) as string | undefined;
  const res = await fetch(on.http.endpoint, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      ...(name ? { 'mcp-name': name } : {}),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: nextId++,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': { name: 'pg-test', version: '0' },
          'io.modelcontextprotocol/clientCapabilities': { elicitation: {}, extensions: { [TASKS]: {} } },
        },
      },
    }),
  });
  return (await res.json()) as { result?: Record<string, unknown>; error?: { code: number } };
}

let a: Replica;
let b: Replica;

describe.skipIf(!url)('tasks extension on PostgreSQL (two replicas, one table)', () => {
  beforeAll(async () => {
    a = await replica();
    b = await replica();
  });
  afterAll(async () => {
    for (const r of [a, b]) {
      await r?.http[Symbol.asyncDispose]();
      await r?.pool.query(`DROP TABLE IF EXISTS "${table}"`).catch(() => {});
      await r?.pool.end();
    }
  });

  it('answers one replica’s task from the other at once, takes the answer there, and the work on the first completes', async () => {
    const created = await rpc(a, 'tools/call', { name: 'wait_for_answer', arguments: {} });
    const taskId = created.result?.taskId as string;
    expect(created.result?.resultType).toBe('task');
    expect((await rpc(b, 'tasks/get', { taskId })).result?.taskId).toBe(taskId);
    await expect.poll(async () => (await rpc(b, 'tasks/get', { taskId })).result?.status).toBe('input_required');
    const { result: asking } = await rpc(b, 'tasks/get', { taskId });
    const [key] = Object.keys(asking?.inputRequests as object);
    expect((await rpc(b, 'tasks/update', { taskId, inputResponses: { [key!]: { action: 'accept', content: {} } } })).result).toBeDefined();
    await expect.poll(async () => (await rpc(b, 'tasks/get', { taskId })).result?.status).toBe('completed');
    const { result } = await rpc(a, 'tasks/get', { taskId });
    expect(result?.result).toMatchObject({ content: [{ type: 'text', text: 'answered {"action":"accept","content":{}}' }] });
  });

  it('cancels through the other replica: the row says cancelled at once, and the work on the first sees its signal abort', async () => {
    const created = await rpc(a, 'tools/call', { name: 'wait_for_answer', arguments: {} });
    const taskId = created.result?.taskId as string;
    expect((await rpc(b, 'tasks/cancel', { taskId })).result?.resultType).toBe('complete');
    expect((await rpc(a, 'tasks/get', { taskId })).result?.status).toBe('cancelled');
    await expect.poll(() => seen).toContain(`aborted ${taskId}`);
  });

  it('forgets a task once its ttl has passed on the driven clock, on both replicas; sweep deletes the row', async () => {
    const created = await rpc(a, 'tools/call', { name: 'wait_for_answer', arguments: {} });
    const taskId = created.result?.taskId as string;
    await rpc(a, 'tasks/cancel', { taskId });
    clock.now += 59_999;
    expect((await rpc(b, 'tasks/get', { taskId })).result?.status).toBe('cancelled');
    clock.now += 1;
    expect((await rpc(b, 'tasks/get', { taskId })).error?.code).toBe(-32602);
    expect((await rpc(a, 'tasks/get', { taskId })).error?.code).toBe(-32602);
    expect(await a.store.sweep()).toBeGreaterThanOrEqual(1);
    const rows = await a.pool.query(`SELECT 1 FROM "${table}" WHERE task_id = $1`, [taskId]);
    expect(rows.rowCount).toBe(0);
  });
});
