/**
 * Task tools with an `output` (structuredContent + outputSchema), as fetch, git and memory define them: an opted-in
 * call gets a task (the SDK's `McpServer` alone would answer "has an output schema but no structured content"),
 * and every other answer is the one the SDK's own `tools/call` handler gives the same tools registered without
 * tasks — compared side by side, over HTTP at 2026-07-28.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createMcpServer, defineTool, registerTools } from '../src/define.ts';
import type { ServerApp } from '../src/runner/types.ts';
import { TasksExtension } from '../src/tasksExtension/extension.ts';
import { createMemoryTaskStore } from '../src/tasksExtension/memoryStore.ts';
import { type HttpFixture, startHttp } from '../src/testing/index.ts';
import { rpc } from './tasksExtension/app.ts';

const ANNOTATIONS = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

function tools(task: boolean) {
  const offer = task ? { task: 'optional' as const } : {};
  return [
    defineTool({
      name: 'measure',
      title: 'Measure',
      description: 'The length of a text',
      input: { text: z.string().min(1), times: z.number().int().default(1) },
      output: { length: z.number() },
      annotations: ANNOTATIONS,
      ...offer,
      handler: async ({ text, times }) => ({
        content: [{ type: 'text' as const, text: `${text.length * times}` }],
        structuredContent: { length: text.length * times },
      }),
    }),
    defineTool({
      name: 'unstructured',
      title: 'Unstructured',
      description: 'Forgets its structured content',
      input: {},
      output: { length: z.number() },
      annotations: ANNOTATIONS,
      ...offer,
      handler: async () => ({ content: [{ type: 'text' as const, text: 'no structure' }] }) as never,
    }),
    defineTool({
      name: 'misshapen',
      title: 'Misshapen',
      description: 'Structured content of the wrong shape',
      input: {},
      output: { length: z.number() },
      annotations: ANNOTATIONS,
      ...offer,
      handler: async () => ({ content: [{ type: 'text' as const, text: 'x' }], structuredContent: { length: 'long' } }) as never,
    }),
    defineTool({
      name: 'plain',
      title: 'Plain',
      description: 'No task, no output',
      input: { n: z.number() },
      annotations: ANNOTATIONS,
      handler: async ({ n }) => ({ content: [{ type: 'text' as const, text: `n=${n}` }] }),
    }),
  ];
}

function app(withTasks: boolean): ServerApp {
  const tasks = withTasks ? new TasksExtension(createMemoryTaskStore(), { pollIntervalMs: 50 }) : undefined;
  return {
    createServer: () => {
      const server = createMcpServer({ name: 'output-tasks', version: '0.0.0' });
      tasks?.attach(server);
      registerTools(server, {}, tools(withTasks), tasks ? { tasks } : {});
      return server;
    },
    ...(tasks ? { preflight: (message: unknown) => tasks.preflight(message), close: () => tasks.close() } : {}),
  };
}

let withTasks: HttpFixture;
let sdkOnly: HttpFixture;

beforeAll(async () => {
  withTasks = await startHttp(app(true));
  sdkOnly = await startHttp(app(false));
});
afterAll(async () => {
  await withTasks[Symbol.asyncDispose]();
  await sdkOnly[Symbol.asyncDispose]();
});

describe('a task tool with an outputSchema', () => {
  it('answers an opted-in call with a CreateTaskResult whose task completes with the structured result', async () => {
    const { result: created, error } = await rpc(withTasks.endpoint, 'tools/call', { name: 'measure', arguments: { text: 'abcd' } });
    expect(error).toBeUndefined();
    expect(created).toMatchObject({ resultType: 'task', status: 'working' });
    expect(created?.isError).toBeUndefined();
    const taskId = created?.taskId as string;
    const get = async () => (await rpc(withTasks.endpoint, 'tasks/get', { taskId })).result;
    await expect.poll(async () => (await get())?.status).toBe('completed');
    expect((await get())?.result).toMatchObject({ structuredContent: { length: 4 }, content: [{ type: 'text', text: '4' }] });
  });

  it('lists the outputSchema as the SDK does without tasks', async () => {
    const ours = (await rpc(withTasks.endpoint, 'tools/list', {})).result?.tools;
    const sdk = (await rpc(sdkOnly.endpoint, 'tools/list', {})).result?.tools;
    expect(ours).toEqual(sdk);
    expect((ours as Array<{ outputSchema?: unknown }>)[0]?.outputSchema).toMatchObject({ properties: { length: { type: 'number' } } });
  });

  const sameAsSdk: Array<[string, Record<string, unknown>, boolean]> = [
    ['a valid call', { name: 'measure', arguments: { text: 'abc', times: 2 } }, false],
    ['a default filled in', { name: 'measure', arguments: { text: 'abc' } }, false],
    ['invalid arguments', { name: 'measure', arguments: { text: '', times: 1.5 } }, false],
    ['missing arguments', { name: 'measure' }, false],
    ['no structured content', { name: 'unstructured', arguments: {} }, false],
    ['structured content of the wrong shape', { name: 'misshapen', arguments: {} }, false],
    ['a tool without task or output', { name: 'plain', arguments: { n: 3 } }, true],
    ['a tool without task, bad arguments', { name: 'plain', arguments: { n: 'three' } }, true],
    ['an unknown tool', { name: 'nope', arguments: {} }, true],
  ];
  for (const [what, params, optIn] of sameAsSdk) {
    it(`answers ${what} exactly as the SDK's McpServer (no opt-in${optIn ? ', and opted in' : ''})`, async () => {
      const ours = await rpc(withTasks.endpoint, 'tools/call', params, { optIn: false });
      const sdk = await rpc(sdkOnly.endpoint, 'tools/call', params, { optIn: false });
      expect(ours).toEqual(sdk);
      if (optIn) expect(await rpc(withTasks.endpoint, 'tools/call', params)).toEqual(sdk);
    });
  }

  it('fails an opted-in call with invalid arguments at once, as a tool error, without creating a task', async () => {
    const { result } = await rpc(withTasks.endpoint, 'tools/call', { name: 'measure', arguments: { text: '' } });
    expect(result).toMatchObject({ isError: true });
    expect(result?.resultType).not.toBe('task');
    expect(JSON.stringify(result?.content)).toContain('Input validation error: Invalid arguments for tool measure: text:');
  });
});
