/**
 * The tasks extension (SEP-2663) through the HTTP runner, with raw 2026-07-28 JSON-RPC (the SDK v2 client has no
 * tasks API yet) and the real v2 client for what it can do: opt-in per request, -32021, tasks/get, tasks/update,
 * tasks/cancel, expiry on a driven clock, and unknown ids.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type HttpFixture, startHttp } from '../src/testing/index.ts';
import { rpc, TASKS, type TasksApp, tasksApp } from './tasksExtension/app.ts';

let fixture: TasksApp;
let http: HttpFixture;

beforeEach(async () => {
  fixture = tasksApp();
  http = await startHttp(fixture.app);
});
afterEach(async () => {
  fixture.release();
  await http[Symbol.asyncDispose]();
});

const get = (taskId: string) => rpc(http.endpoint, 'tasks/get', { taskId });
const statusOf = async (taskId: string) => (await get(taskId)).result?.status;

describe('tasks extension: advertising and opting in', () => {
  it('lists the extension under capabilities.extensions in server/discover, and no v1 tasks capability', async () => {
    const { result } = await rpc(http.endpoint, 'server/discover', {});
    expect(result?.capabilities).toMatchObject({ extensions: { [TASKS]: {} } });
    expect((result?.capabilities as Record<string, unknown> | undefined)?.tasks).toBeUndefined();
  });

  it('runs an optional tool inline for a request that did not opt in, exactly as without the extension', async () => {
    const pending = rpc(http.endpoint, 'tools/call', { name: 'echo_later', arguments: { text: 'hi' } }, { optIn: false });
    fixture.release();
    const { result } = await pending;
    expect(result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'echo: hi' }] });
    expect(result?.taskId).toBeUndefined();
  });

  it('answers an opted-in call with a flat CreateTaskResult that tasks/get resolves at once, then inlines the result', async () => {
    const { result: created } = await rpc(http.endpoint, 'tools/call', { name: 'echo_later', arguments: { text: 'hi' } });
    expect(created).toMatchObject({ resultType: 'task', status: 'working', ttlMs: 60_000, pollIntervalMs: 250 });
    expect(created?.task).toBeUndefined();
    expect(created?.createdAt).toBe('2026-12-01T10:00:00.000Z');
    const taskId = created?.taskId as string;
    expect(taskId).toMatch(/^[A-Za-z0-9_-]{22}$/);
    // Durable before the answer: the very next tasks/get finds it.
    expect((await get(taskId)).result).toMatchObject({ resultType: 'complete', taskId, status: 'working' });
    fixture.release();
    await expect.poll(() => statusOf(taskId)).toBe('completed');
    const { result } = await get(taskId);
    expect(result?.result).toMatchObject({ content: [{ type: 'text', text: 'echo: hi (task)' }] });
    expect(result?.error).toBeUndefined();
  });

  it('answers -32021 naming the extension to a required-task tool called without it (HTTP 400), before the SDK', async () => {
    const answer = await rpc(http.endpoint, 'tools/call', { name: 'ask', arguments: {} }, { optIn: false });
    expect(answer.status).toBe(400);
    expect(answer.error).toMatchObject({ code: -32021, data: { requiredCapabilities: { extensions: { [TASKS]: {} } } } });
  });

  it('refuses tasks/get, tasks/update and tasks/cancel with -32021 to a request that did not declare the extension', async () => {
    for (const [method, params] of [
      ['tasks/get', { taskId: 'x' }],
      ['tasks/update', { taskId: 'x', inputResponses: {} }],
      ['tasks/cancel', { taskId: 'x' }],
    ] as const) {
      const answer = await rpc(http.endpoint, method, params, { optIn: false });
      expect(answer.error?.code, method).toBe(-32021);
    }
  });

  it('answers -32602 for an unknown id, and -32601 for the removed tasks/result and tasks/list', async () => {
    expect((await get('no-such-task')).error).toMatchObject({ code: -32602, message: 'Failed to retrieve task: Task not found' });
    expect((await rpc(http.endpoint, 'tasks/result', { taskId: 'x' })).error?.code).toBe(-32601);
    expect((await rpc(http.endpoint, 'tasks/list', {})).error?.code).toBe(-32601);
  });

  it('refuses an Mcp-Name header that disagrees with the taskId (-32020)', async () => {
    const answer = await rpc(http.endpoint, 'tasks/get', { taskId: 'abc' }, { headers: { 'mcp-name': 'other' } });
    expect(answer.error?.code).toBe(-32020);
  });
});

describe('tasks extension: execution', () => {
  it('ends failed with the JSON-RPC error inlined when the tool throws a protocol error', async () => {
    const { result: created } = await rpc(http.endpoint, 'tools/call', { name: 'explode', arguments: {} });
    const taskId = created?.taskId as string;
    await expect.poll(() => statusOf(taskId)).toBe('failed');
    const { result } = await get(taskId);
    expect(result?.error).toEqual({ code: -32603, message: 'boom at the protocol level' });
    expect(result?.result).toBeUndefined();
  });

  it('reports progress as the status message', async () => {
    const { result: created } = await rpc(http.endpoint, 'tools/call', { name: 'progress', arguments: {} });
    const taskId = created?.taskId as string;
    await expect.poll(async () => (await get(taskId)).result?.statusMessage).toBe('three of ten');
    expect(await statusOf(taskId)).toBe('working');
  });

  it('goes input_required with every outstanding request, takes partial answers, and resumes once all are in', async () => {
    const { result: created } = await rpc(http.endpoint, 'tools/call', { name: 'ask', arguments: {} });
    const taskId = created?.taskId as string;
    await expect.poll(async () => Object.keys(((await get(taskId)).result?.inputRequests ?? {}) as object).length).toBe(2);
    const { result: asking } = await get(taskId);
    expect(asking?.status).toBe('input_required');
    const [first, second] = Object.keys(asking?.inputRequests as object);
    expect((asking?.inputRequests as Record<string, { method: string }> | undefined)?.[first!]?.method).toBe('elicitation/create');

    const ack = await rpc(http.endpoint, 'tasks/update', {
      taskId,
      inputResponses: { [first!]: { action: 'accept', content: { n: 1 } }, 'never-issued': { action: 'accept' } },
    });
    expect(ack.result).toEqual({ resultType: 'complete', _meta: expect.anything() });
    const { result: partial } = await get(taskId);
    expect(partial?.status).toBe('input_required');
    expect(Object.keys(partial?.inputRequests as object)).toEqual([second]);

    await rpc(http.endpoint, 'tasks/update', { taskId, inputResponses: { [second!]: { action: 'decline' } } });
    await expect.poll(() => statusOf(taskId)).toBe('completed');
    const { result } = await get(taskId);
    expect(result?.result).toMatchObject({
      content: [{ type: 'text', text: 'answers: {"action":"accept","content":{"n":1}} {"action":"decline"}' }],
    });
  });

  it('cancels cooperatively: an empty ack, status cancelled, the tool sees its signal aborted; a second cancel acks too', async () => {
    const { result: created } = await rpc(http.endpoint, 'tools/call', { name: 'echo_later', arguments: { text: 'x' } });
    const taskId = created?.taskId as string;
    const ack = await rpc(http.endpoint, 'tasks/cancel', { taskId });
    expect(ack.result?.resultType).toBe('complete');
    expect(ack.result?.status).toBeUndefined();
    expect(await statusOf(taskId)).toBe('cancelled');
    await expect.poll(() => fixture.aborted).toEqual([taskId]);
    // A late result never overwrites the cancellation.
    fixture.release();
    expect((await rpc(http.endpoint, 'tasks/cancel', { taskId })).result?.resultType).toBe('complete');
    expect(await statusOf(taskId)).toBe('cancelled');
  });

  it('keeps a task through its ttl and forgets it after (driven clock): then its id is unknown', async () => {
    const { result: created } = await rpc(http.endpoint, 'tools/call', { name: 'echo_later', arguments: { text: 'x' } });
    const taskId = created?.taskId as string;
    fixture.release();
    await expect.poll(() => statusOf(taskId)).toBe('completed');
    fixture.clock.now += 59_999;
    expect(await statusOf(taskId)).toBe('completed');
    fixture.clock.now += 1;
    expect((await get(taskId)).error?.code).toBe(-32602);
    expect((await rpc(http.endpoint, 'tasks/cancel', { taskId })).error?.code).toBe(-32602);
  });

  it('serves the real v2 client (2026-07-28, no opt-in) the tools as before: an optional tool inline, a required one refused', async () => {
    const client = await http.connect({ mode: '2026-07-28' });
    const pending = client.callTool({ name: 'echo_later', arguments: { text: 'v2' } });
    fixture.release();
    expect(await pending).toMatchObject({ content: [{ type: 'text', text: 'echo: v2' }] });
    await expect(client.callTool({ name: 'ask', arguments: {} })).rejects.toMatchObject({ code: -32021 });
  });
});
