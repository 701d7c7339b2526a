/**
 * The tasks extension (SEP-2663) from the client side, against a 2026-07-28 server built with the v2 SDK
 * (test/fixtures/taskServer.ts): the opt-in goes only to servers that advertise the extension, a task is
 * polled at the server's `pollIntervalMs` (a driven clock: no waiting), `input_required` goes through
 * `host.elicit` and back with `tasks/update` (once per key), and an abort sends `tasks/cancel`.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  type AgentHost,
  createRegistry,
  type McpRegistry,
  type ServerConfig,
  type TaskClock,
  type TaskStatusUpdate,
} from '../src/index.js';
import { startTaskServer, TASKS, type TaskScriptState } from './fixtures/taskServer.js';

const config: ServerConfig = {
  kind: 'stdio',
  name: 'tasky',
  command: 'unused',
  args: [],
  env: {},
  approval: { tools: {} },
  protocol: '2026-07-28',
};

function text(result: { content?: unknown }): string {
  return (result.content as { type: string; text?: string }[]).map((c) => c.text ?? '').join('');
}

/** A clock the test drives: `sleep` logs its interval to `events`, advances time and returns at once (or, held, waits for `release`). */
function drivenClock(events: string[], hold = false) {
  let time = 0;
  const sleeps: number[] = [];
  let held: { resolve(): void } | undefined;
  const clock: TaskClock = {
    now: () => time,
    sleep(ms, signal) {
      sleeps.push(ms);
      events.push(`sleep ${ms}`);
      time += ms;
      if (!hold) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        held = { resolve };
        signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
      });
    },
  };
  return { clock, sleeps, release: () => held?.resolve() };
}

const done = (text: string): TaskScriptState => ({ status: 'completed', result: { content: [{ type: 'text', text }], isError: false } });

describe('tasks extension (client)', () => {
  const handles: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    await Promise.all(handles.splice(0).map((handle) => handle.close()));
  });

  async function connect(
    options: Parameters<typeof startTaskServer>[0],
    host: AgentHost,
    clock: TaskClock,
  ): Promise<{ registry: McpRegistry; server: ReturnType<typeof startTaskServer> }> {
    const server = startTaskServer(options);
    handles.push(server);
    const registry = await createRegistry([config], {
      host,
      transportFactory: () => server.clientTransport,
      taskClock: clock,
      connectTimeoutMs: 5000,
    });
    handles.push(registry);
    expect(registry.servers[0]).toMatchObject({ status: 'connected', protocolVersion: '2026-07-28' });
    return { registry, server };
  }

  it('a server that does not advertise tasks gets no opt-in and answers inline', async () => {
    const events: string[] = [];
    const { registry, server } = await connect({ advertise: false, script: [done('never')] }, {}, drivenClock(events).clock);
    expect(text(await registry.callTool('tasky__slow_job', { size: 3 }))).toBe('inline job of 3');
    expect(server.log.callMeta).toHaveLength(1);
    const caps = (server.log.callMeta[0] as Record<string, { extensions?: Record<string, unknown> }>)[
      'io.modelcontextprotocol/clientCapabilities'
    ];
    expect(caps?.extensions?.[TASKS]).toBeUndefined();
    expect(server.log.requests).toEqual([]);
    expect(events).toEqual([]);
  });

  it('opts in where advertised, polls at the server interval (and follows a change), shows status, returns the inlined result', async () => {
    const events: string[] = [];
    const statuses: TaskStatusUpdate[] = [];
    const driven = drivenClock(events);
    const { registry, server } = await connect(
      {
        advertise: true,
        events,
        pollIntervalMs: 2500,
        script: [
          { status: 'working', statusMessage: '10% done' },
          { status: 'working', statusMessage: '10% done', pollIntervalMs: 700 },
          { status: 'working', statusMessage: '80% done', pollIntervalMs: 700 },
          done('job of 3 finished'),
        ],
      },
      { onTaskStatus: (_server, _tool, update) => statuses.push(update) },
      driven.clock,
    );
    expect(text(await registry.callTool('tasky__slow_job', { size: 3 }))).toBe('job of 3 finished');
    const call = server.log.requests[0]!;
    expect(call).toMatchObject({ method: 'tools/call', params: { name: 'slow_job', arguments: { size: 3 } } });
    const meta = call.params._meta as Record<string, { extensions?: unknown } | undefined>;
    expect(meta['io.modelcontextprotocol/clientCapabilities']?.extensions).toEqual({ [TASKS]: {} });
    // Every tasks/get comes after a sleep of the interval the last answer named.
    expect(events).toEqual([
      'tools/call',
      'sleep 2500',
      'tasks/get',
      'sleep 2500',
      'tasks/get',
      'sleep 700',
      'tasks/get',
      'sleep 700',
      'tasks/get',
    ]);
    expect(server.log.requests.filter((r) => r.method === 'tasks/get').every((r) => r.params.taskId === 'task-1')).toBe(true);
    // Shown once per change.
    expect(statuses.map((s) => `${s.status}:${s.statusMessage ?? ''}`)).toEqual([
      'working:queued',
      'working:10% done',
      'working:80% done',
      'completed:',
    ]);
  });

  it('input_required: the form is shown once per key (polls repeat it), the answer goes back with tasks/update', async () => {
    const events: string[] = [];
    const ask = {
      status: 'input_required',
      statusMessage: 'needs confirmation',
      inputRequests: {
        confirm: {
          method: 'elicitation/create',
          params: {
            mode: 'form',
            message: 'Delete 3 files?',
            requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
          },
        },
      },
    };
    const elicit = vi.fn(async () => ({ action: 'accept' as const, content: { ok: true } }));
    const { registry, server } = await connect(
      { advertise: true, events, script: [ask, ask, { status: 'working' }, done('deleted')] },
      { elicit },
      drivenClock(events).clock,
    );
    expect(text(await registry.callTool('tasky__slow_job', { size: 1 }))).toBe('deleted');
    expect(elicit).toHaveBeenCalledTimes(1);
    expect(elicit.mock.calls[0]).toMatchObject(['tasky', { message: 'Delete 3 files?' }]);
    const updates = server.log.requests.filter((r) => r.method === 'tasks/update');
    expect(updates).toHaveLength(1);
    expect(updates[0]!.params).toMatchObject({
      taskId: 'task-1',
      inputResponses: { confirm: { action: 'accept', content: { ok: true } } },
    });
    expect(events.indexOf('tasks/update')).toBe(events.indexOf('tasks/get') + 1);
  });

  it('input_required with nobody to ask: the task is cancelled and the call fails in one line', async () => {
    const ask = {
      status: 'input_required',
      inputRequests: {
        k: { method: 'elicitation/create', params: { mode: 'form', message: 'x', requestedSchema: { type: 'object', properties: {} } } },
      },
    };
    const { registry, server } = await connect({ advertise: true, script: [ask] }, {}, drivenClock([]).clock);
    const failure = await registry.callTool('tasky__slow_job', { size: 1 }).catch((error: Error) => error);
    expect(failure).toMatchObject({ kind: 'TOOL_EXECUTION_FAILED' });
    expect((failure as Error).message).not.toContain('\n');
    expect(server.log.requests.map((r) => r.method)).toEqual(['tools/call', 'tasks/get', 'tasks/cancel']);
  });

  it('aborting the call (Ctrl-C) sends tasks/cancel for the task and ends the call as cancelled', async () => {
    const events: string[] = [];
    const driven = drivenClock(events, true);
    const { registry, server } = await connect({ advertise: true, events, script: [{ status: 'working' }] }, {}, driven.clock);
    const controller = new AbortController();
    const call = registry.callTool('tasky__slow_job', { size: 9 }, { signal: controller.signal }).catch((error: Error) => error);
    await vi.waitFor(() => expect(driven.sleeps).toHaveLength(1));
    controller.abort(new Error('user pressed Ctrl-C'));
    expect(await call).toMatchObject({ kind: 'CANCELLED' });
    await vi.waitFor(() => expect(server.log.requests.map((r) => r.method)).toEqual(['tools/call', 'tasks/cancel']));
    expect(server.log.requests[1]!.params).toMatchObject({ taskId: 'task-1' });
  });

  it('a failed task is the tool call failing with the inlined JSON-RPC error', async () => {
    const { registry } = await connect(
      { advertise: true, script: [{ status: 'failed', error: { code: -32603, message: 'rate limit exceeded' } }] },
      {},
      drivenClock([]).clock,
    );
    await expect(registry.callTool('tasky__slow_job', { size: 1 })).rejects.toMatchObject({
      kind: 'TOOL_EXECUTION_FAILED',
      message: 'tasky__slow_job: the task failed: rate limit exceeded',
    });
  });

  it('an opted-in call the server answers at once (through the SDK server) is that result', async () => {
    const { registry, server } = await connect({ advertise: true, script: [done('x')] }, {}, drivenClock([]).clock);
    expect(text(await registry.callTool('tasky__quick', {}))).toBe('quick answer');
    const caps = (server.log.callMeta.at(-1) as Record<string, { extensions?: Record<string, unknown> }>)[
      'io.modelcontextprotocol/clientCapabilities'
    ];
    expect(caps?.extensions?.[TASKS]).toEqual({});
    expect(server.log.requests).toEqual([]);
  });

  it('MRTR before the task: the form is answered, the call repeated with inputResponses and requestState, then the task followed', async () => {
    const elicit = vi.fn(async () => ({ action: 'accept' as const, content: {} }));
    const { registry, server } = await connect({ advertise: true, script: [done('started and done')] }, { elicit }, drivenClock([]).clock);
    expect(text(await registry.callTool('tasky__confirmed_job', {}))).toBe('started and done');
    expect(elicit).toHaveBeenCalledTimes(1);
    const calls = server.log.requests.filter((r) => r.method === 'tools/call');
    expect(calls).toHaveLength(2);
    expect(calls[1]!.params).toMatchObject({ requestState: 'state-1', inputResponses: { go: { action: 'accept' } } });
  });
});
