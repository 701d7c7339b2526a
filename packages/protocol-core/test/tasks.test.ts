/**
 * The tasks layer end to end: a task tool on a v2 `McpServer`, driven by the v1 SDK client (the 2025-era
 * client, with its experimental tasks API) in-process and over Streamable HTTP, and by the v2 client in the
 * 2026 era (no 2025 tasks: the tool runs inline, `tasks/*` are not there).
 */
import {
  CallToolResultSchema,
  CreateTaskResultSchema,
  ElicitRequestSchema,
  TaskStatusNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { McpServer } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createTaskLayer, type TaskLayer, type TaskLayerOptions } from '../src/tasks/index.js';
import { connectV1InMemory, sendRaw, startHttp, type V1InMemoryPair } from '../src/testing/index.js';

/** Settles only when `signal` aborts (rejecting with its reason): a task held at a step until it is stopped. */
const untilAborted = (signal: AbortSignal) =>
  new Promise<never>((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });

/** What the `count` tool saw: the abort of its task, and that its run returned, for the cancellation test. */
interface Seen {
  aborted: boolean;
  ended?: boolean;
}

/**
 * A server with one task tool, `count`: `steps` working updates (with `hold`, it stays at the first one until its
 * task is stopped), then optionally a question and a failure.
 */
function taskServer(seen: Seen = { aborted: false }, options: TaskLayerOptions = {}): { server: McpServer; tasks: TaskLayer } {
  const server = new McpServer({ name: 'tasks-test', version: '0.0.0' }, { capabilities: { tools: {} } });
  const tasks = createTaskLayer(server, options);
  server.server.oninitialized = () => tasks.attach();
  server.server.onclose = () => tasks.close();
  tasks.registerTool(
    {
      name: 'count',
      title: 'Count',
      description: 'Counts in a task',
      input: {
        steps: z.number().int().min(0),
        hold: z.boolean().default(false),
        ask: z.boolean().default(false),
        fail: z.boolean().default(false),
        bytes: z.number().default(0),
      },
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      pollIntervalMs: 5,
      run: async ({ steps, hold, ask, fail, bytes }, _ctx, task) => {
        task.signal.addEventListener('abort', () => {
          seen.aborted = true;
        });
        try {
          for (let i = 1; i <= steps; i++) {
            await task.update('working', `step ${i}`);
            if (hold) await untilAborted(task.signal);
          }
        } finally {
          seen.ended = true;
        }
        let name = 'nobody';
        if (ask && task.canRequestInput) {
          await task.update('input_required', 'who?');
          const answer = await task.requestInput(
            { method: 'elicitation/create', params: { message: 'Name?', requestedSchema: { type: 'object', properties: {} } } },
            z.object({ action: z.string(), content: z.object({ name: z.string() }).optional() }),
          );
          name = answer.content?.name ?? answer.action;
        }
        if (fail) throw new Error('boom');
        if (bytes) return { content: [{ type: 'text', text: 'x'.repeat(bytes) }] };
        return { content: [{ type: 'text', text: `counted ${steps} for ${name}` }] };
      },
    },
    {},
  );
  return { server, tasks };
}

async function createTask(pair: V1InMemoryPair, args: Record<string, unknown>, task: Record<string, unknown> = {}) {
  return pair.client.request({ method: 'tools/call', params: { name: 'count', arguments: args, task } }, CreateTaskResultSchema);
}

async function untilStatus(pair: V1InMemoryPair, taskId: string, status: string) {
  await expect
    .poll(async () => (await pair.client.experimental.tasks.getTask(taskId)).status, { message: `task ${taskId} never reached ${status}` })
    .toBe(status);
}

describe('a task tool for a 2025-11-25 client', () => {
  it('advertises the tasks capability, lists the tool as taskSupport required, and refuses a call without a task', async () => {
    await using pair = await connectV1InMemory(taskServer().server);
    expect(pair.client.getServerCapabilities()?.tasks).toEqual({ list: {}, cancel: {}, requests: { tools: { call: {} } } });
    const [tool] = (await pair.client.listTools()).tools;
    expect(tool).toMatchObject({ name: 'count', execution: { taskSupport: 'required' } });
    const plain = await pair.client.request(
      { method: 'tools/call', params: { name: 'count', arguments: { steps: 1 } } },
      CallToolResultSchema,
    );
    expect(plain).toEqual({
      content: [{ type: 'text', text: "MCP error -32601: Tool count requires task augmentation (taskSupport: 'required')" }],
      isError: true,
    });
  });

  it('answers a CreateTaskResult (nothing else), notifies each status, and serves the result with related-task _meta', async () => {
    await using pair = await connectV1InMemory(taskServer().server);
    const statuses: string[] = [];
    pair.client.setNotificationHandler(
      TaskStatusNotificationSchema,
      (n) => void statuses.push(`${n.params.status}: ${n.params.statusMessage}`),
    );
    const created = (await sendRaw(pair.client, 'tools/call', { name: 'count', arguments: { steps: 2 }, task: { ttl: 60_000 } })) as {
      task: { taskId: string };
    };
    expect(Object.keys(created)).toEqual(['task']);
    expect(created.task).toMatchObject({ status: 'working', ttl: 60_000, pollInterval: 5 });
    const { taskId } = created.task;
    const result = await pair.client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
    expect(result).toEqual({
      content: [{ type: 'text', text: 'counted 2 for nobody' }],
      _meta: { 'io.modelcontextprotocol/related-task': { taskId } },
    });
    await untilStatus(pair, taskId, 'completed');
    expect(statuses).toEqual(['working: step 1', 'working: step 2', 'completed: step 2']);
  });

  it('delivers a task’s input request through tasks/result, with related-task _meta, and resumes with the answer', async () => {
    await using pair = await connectV1InMemory(taskServer().server, { capabilities: { elicitation: {} } });
    const asked: unknown[] = [];
    pair.client.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.push(request.params);
      return { action: 'accept', content: { name: 'Ada' } };
    });
    const messages = [];
    for await (const message of pair.client.experimental.tasks.callToolStream(
      { name: 'count', arguments: { steps: 1, ask: true } },
      CallToolResultSchema,
      { task: {} },
    )) {
      messages.push(message);
    }
    const created = messages[0] as { type: string; task: { taskId: string } };
    expect(messages.some((m) => m.type === 'taskStatus' && m.task.status === 'input_required')).toBe(true);
    expect(asked).toEqual([
      {
        message: 'Name?',
        requestedSchema: { type: 'object', properties: {} },
        _meta: { 'io.modelcontextprotocol/related-task': { taskId: created.task.taskId } },
      },
    ]);
    expect(messages.at(-1)).toMatchObject({ type: 'result', result: { content: [{ type: 'text', text: 'counted 1 for Ada' }] } });
  });

  it('records a failure with its message; the failed task has no result', async () => {
    await using pair = await connectV1InMemory(taskServer().server);
    const { task } = await createTask(pair, { steps: 0, fail: true });
    await untilStatus(pair, task.taskId, 'failed');
    expect(await pair.client.experimental.tasks.getTask(task.taskId)).toMatchObject({ status: 'failed', statusMessage: 'Error: boom' });
    await expect(pair.client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema)).rejects.toThrow(
      `Task ${task.taskId} has no result stored`,
    );
  });

  it('replaces a result over the size limit with an error result saying so', async () => {
    await using pair = await connectV1InMemory(taskServer().server);
    const { task } = await createTask(pair, { steps: 0, bytes: 9 * 1024 * 1024 });
    const result = await pair.client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    expect(result.isError).toBe(true);
    expect(result.content[0]).toMatchObject({
      type: 'text',
      text: expect.stringMatching(/^The answer to tool count is 9.0 MiB \(\d+ bytes\), over the limit of 8.0 MiB/),
    });
  });

  it('cancels: the work is aborted, the task stays cancelled, a second cancel is refused', async () => {
    const seen: Seen = { aborted: false };
    await using pair = await connectV1InMemory(taskServer(seen).server);
    const { task } = await createTask(pair, { steps: 5, hold: true });
    const cancelled = await pair.client.experimental.tasks.cancelTask(task.taskId);
    expect(cancelled).toMatchObject({ taskId: task.taskId, status: 'cancelled', statusMessage: 'Client cancelled task execution.' });
    expect(seen.aborted).toBe(true);
    // Once the aborted run has returned (not after a while), the task is still cancelled: the run's end did not overwrite it.
    await expect.poll(() => seen.ended).toBe(true);
    expect((await pair.client.experimental.tasks.getTask(task.taskId)).status).toBe('cancelled');
    await expect(pair.client.experimental.tasks.cancelTask(task.taskId)).rejects.toThrow(
      'Cannot cancel task in terminal status: cancelled',
    );
  });

  it('refuses invalid arguments and unknown tasks with -32602', async () => {
    await using pair = await connectV1InMemory(taskServer().server);
    await expect(createTask(pair, { steps: -1 })).rejects.toMatchObject({ code: -32602 });
    await expect(createTask(pair, { steps: -1 })).rejects.toThrow(
      'MCP error -32602: Input validation error: Invalid arguments for tool count: steps: Too small: expected number to be >=0',
    );
    await expect(pair.client.experimental.tasks.getTask('nope')).rejects.toThrow('Failed to retrieve task: Task not found');
    await expect(pair.client.experimental.tasks.getTaskResult('nope', CallToolResultSchema)).rejects.toThrow('Task not found: nope');
    await expect(pair.client.experimental.tasks.cancelTask('nope')).rejects.toThrow('Task not found: nope');
    await expect(pair.client.experimental.tasks.listTasks('nope')).rejects.toThrow('Failed to list tasks: Invalid cursor: nope');
  });

  it('caps the ttl a client asks for, and refuses new tasks past maxTasks while all run', async () => {
    await using pair = await connectV1InMemory(taskServer(undefined, { maxTtlMs: 1000, maxTasks: 2 }).server);
    const first = await createTask(pair, { steps: 3, hold: true }, { ttl: 999_999 });
    expect(first.task.ttl).toBe(1000);
    expect((await createTask(pair, { steps: 3, hold: true })).task.ttl).toBe(1000);
    await expect(createTask(pair, { steps: 1 })).rejects.toThrow('Too many tasks: 2 are still running');
    expect((await pair.client.experimental.tasks.listTasks()).tasks).toHaveLength(2);
  });

  it('stops every task when the server closes', async () => {
    const seen = { aborted: false };
    const { server, tasks } = taskServer(seen);
    const pair = await connectV1InMemory(server);
    const { task } = await createTask(pair, { steps: 5, hold: true });
    await pair[Symbol.asyncDispose]();
    expect(seen.aborted).toBe(true);
    expect(tasks.store.get(task.taskId)).toBeUndefined();
  });
});

describe('over Streamable HTTP', () => {
  it('a 2025 session creates a task, gets its input request on the tasks/result stream, and its result', async () => {
    await using http = await startHttp({ createServer: () => taskServer().server });
    const client = await http.connectV1({ capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, () => ({ action: 'accept', content: { name: 'Grace' } }));
    const messages = [];
    for await (const message of client.experimental.tasks.callToolStream(
      { name: 'count', arguments: { steps: 1, ask: true } },
      CallToolResultSchema,
      { task: {} },
    )) {
      messages.push(message);
    }
    expect(messages[0]).toMatchObject({ type: 'taskCreated', task: { status: 'working' } });
    expect(messages.at(-1)).toMatchObject({ type: 'result', result: { content: [{ type: 'text', text: 'counted 1 for Grace' }] } });
  });

  it('a 2026-07-28 client gets the tool run inline, and no tasks/* methods', async () => {
    await using http = await startHttp({ createServer: () => taskServer().server });
    const client = await http.connect({ mode: '2026-07-28' });
    expect(client.getProtocolEra()).toBe('modern');
    const { tools } = await client.listTools();
    expect(tools[0]?.name).toBe('count');
    expect(tools[0]).not.toHaveProperty('execution');
    expect(await client.callTool({ name: 'count', arguments: { steps: 1, ask: true } })).toMatchObject({
      content: [{ type: 'text', text: 'counted 1 for nobody' }],
    });
    // `tasks/get` is a tasks-extension method in this era; the layer does not implement the extension.
    await expect(client.request({ method: 'tasks/get', params: { taskId: 'x' } }, z.any())).rejects.toMatchObject({
      code: -32601,
      message: 'Method not found',
    });
  });
});
