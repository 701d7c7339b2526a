// The `current` profile's simulate-research-query on the tasks extension (2026-07-28), over Streamable HTTP with
// raw JSON-RPC: a request that opts in gets a task whose stages are its status messages and whose clarification
// is an input_required elicitation; one that does not gets the inline report, as before the extension.
import { createMemoryTaskStore, TasksExtension } from '@mcpkit/protocol-core/tasks';
import { type HttpFixture, startHttp } from '@mcpkit/protocol-core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createCurrentServer } from '../../src/profiles/current/index.js';
import { createTestClock, type TestClock } from '../clock.js';

const TASKS = 'io.modelcontextprotocol/tasks';
let http: HttpFixture;
/** The research stages' clock (the HTTP runner keeps its real timers). */
let clock: TestClock;
let nextId = 1;

beforeEach(async () => {
  const tasks = new TasksExtension(createMemoryTaskStore());
  clock = createTestClock();
  http = await startHttp({
    createServer: (context) =>
      createCurrentServer({ tasks, intervals: { researchStageMs: 1, taskPollMs: 10 }, scheduler: clock.scheduler }, context),
    preflight: (message) => tasks.preflight(message),
  });
});
afterEach(async () => {
  await http[Symbol.asyncDispose]();
});

async function rpc(method: string, params: Record<string, unknown>, capabilities: Record<string, unknown>) {
  const name = (params.taskId ?? params.name) as string | undefined;
  const res = await fetch(http.endpoint, {
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
          'io.modelcontextprotocol/clientInfo': { name: 'current-tasks', version: '0' },
          'io.modelcontextprotocol/clientCapabilities': capabilities,
        },
      },
    }),
  });
  const text = await res.text();
  const json = text.startsWith('{')
    ? JSON.parse(text)
    : text
        .split('\n')
        .filter((l) => l.startsWith('data:'))
        .map((l) => JSON.parse(l.slice(5)))
        .find((m) => 'result' in m || 'error' in m);
  return json as { result?: Record<string, unknown>; error?: { code: number } };
}

const OPTED = { elicitation: {}, extensions: { [TASKS]: {} } };

/** Asks `tasks/get` until the task has `status`, at most 100 times: run it on the clock, which moves the stages meanwhile. */
async function reaches(taskId: string, status: string): Promise<void> {
  for (let asked = 0; asked < 100; asked++) if ((await rpc('tasks/get', { taskId }, OPTED)).result?.status === status) return;
  throw new Error(`task ${taskId} did not reach ${status}`);
}
const reportOf = (result: Record<string, unknown> | undefined) => (result?.content as { text: string }[] | undefined)?.[0]?.text ?? '';

describe('current profile: simulate-research-query on the tasks extension', () => {
  it('lists the extension in server/discover and no 2025 tasks capability', async () => {
    const { result } = await rpc('server/discover', {}, OPTED);
    expect(result?.capabilities).toMatchObject({ extensions: { [TASKS]: {} } });
    expect((result?.capabilities as Record<string, unknown> | undefined)?.tasks).toBeUndefined();
  });

  it('runs inline without the extension (the report, no clarification)', async () => {
    const { result } = await clock.run(
      rpc('tools/call', { name: 'simulate-research-query', arguments: { topic: 'Quantum', ambiguous: true } }, { elicitation: {} }),
    );
    expect(result?.resultType).toBe('complete');
    expect(reportOf(result)).toContain('# Research Report: Quantum\n');
  });

  it('runs as a task with it: input_required for the clarification, then the report with it', async () => {
    const created = await rpc(
      'tools/call',
      { name: 'simulate-research-query', arguments: { topic: 'Python stuff', ambiguous: true } },
      OPTED,
    );
    expect(created.result?.resultType).toBe('task');
    const taskId = created.result?.taskId as string;
    await clock.run(reaches(taskId, 'input_required'));
    const { result: asking } = await rpc('tasks/get', { taskId }, OPTED);
    const [key] = Object.keys(asking?.inputRequests as object);
    expect((asking?.inputRequests as Record<string, { method: string }> | undefined)?.[key!]?.method).toBe('elicitation/create');
    await rpc('tasks/update', { taskId, inputResponses: { [key!]: { action: 'accept', content: { interpretation: 'snake' } } } }, OPTED);
    await clock.run(reaches(taskId, 'completed'));
    const { result } = await rpc('tasks/get', { taskId }, OPTED);
    expect(reportOf(result?.result as Record<string, unknown>)).toContain('# Research Report: Python stuff (snake)');
  });
});
