/**
 * A small app on the tasks extension for the tests: `echo_later` (optional: waits for `release` or its signal),
 * `ask` (required: one elicitation through `extra.task.input`), `explode` (optional: a JSON-RPC error), `progress`
 * (optional: reports progress through the reporter of `extra`, then waits). The clock and releases are the test's.
 */

import { type RpcAnswer, rpc as rawRpc } from '@mcpkit/test-utils/tasks';
import { ProtocolError } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { createMcpServer, defineTool, registerTools } from '../../src/define.ts';
import { createProgressReporter } from '../../src/progress.ts';
import { textResult } from '../../src/results.ts';
import type { ServerApp } from '../../src/runner/types.ts';
import { TasksExtension } from '../../src/tasksExtension/extension.ts';
import { createMemoryTaskStore } from '../../src/tasksExtension/memoryStore.ts';
import type { TaskStore } from '../../src/tasksExtension/types.ts';

const ANNOTATIONS = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

export interface TasksApp {
  app: ServerApp;
  tasks: TasksExtension;
  clock: { now: number };
  /** Lets every `echo_later` and `progress` call (waiting now or later) finish. */
  release(): void;
  /** Signals the running `echo_later` work saw aborted. */
  aborted: string[];
}

function waitFor(signal: AbortSignal, release: Promise<void>): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    signal.addEventListener('abort', () => reject(signal.reason), { once: true });
    void release.then(resolve);
  });
}

export function tasksApp({ store, scopes }: { store?: TaskStore; scopes?: ServerApp['scopes'] } = {}): TasksApp {
  const clock = { now: Date.parse('2026-12-01T10:00:00Z') };
  const now = () => clock.now;
  const tasks = new TasksExtension(store ?? createMemoryTaskStore({ now }), { now, ttlMs: 60_000, pollIntervalMs: 250 });
  let releaseNow: () => void = () => {};
  const released = new Promise<void>((resolve) => {
    releaseNow = resolve;
  });
  const aborted: string[] = [];
  const tools = [
    defineTool({
      name: 'echo_later',
      title: 'Echo later',
      description: 'Echoes once released',
      input: { text: z.string() },
      annotations: ANNOTATIONS,
      task: 'optional',
      handler: async ({ text }, _ctx: unknown, extra) => {
        try {
          await waitFor(extra.mcpReq.signal, released);
        } catch (error) {
          aborted.push(extra.task?.taskId ?? 'inline');
          throw error;
        }
        return textResult(`echo: ${text}${extra.task ? ' (task)' : ''}`);
      },
    }),
    defineTool({
      name: 'ask',
      title: 'Ask',
      description: 'Asks the user, as a task only',
      input: {},
      annotations: ANNOTATIONS,
      task: 'required',
      handler: async (_args, _ctx: unknown, extra) => {
        const [a, b] = await Promise.all([
          extra.task!.input({
            method: 'elicitation/create',
            params: { mode: 'form', message: 'First?', requestedSchema: { type: 'object', properties: {} } },
          }),
          extra.task!.input({
            method: 'elicitation/create',
            params: { mode: 'form', message: 'Second?', requestedSchema: { type: 'object', properties: {} } },
          }),
        ]);
        return textResult(`answers: ${JSON.stringify(a)} ${JSON.stringify(b)}`);
      },
    }),
    defineTool({
      name: 'explode',
      title: 'Explode',
      description: 'A protocol error',
      input: {},
      annotations: ANNOTATIONS,
      task: 'optional',
      handler: async () => {
        throw new ProtocolError(-32603, 'boom at the protocol level');
      },
    }),
    defineTool({
      name: 'progress',
      title: 'Progress',
      description: 'Reports progress, then waits to be released',
      input: {},
      annotations: ANNOTATIONS,
      task: 'optional',
      handler: async (_args, _ctx: unknown, extra) => {
        const reporter = createProgressReporter(extra, { delayMs: 0, intervalMs: 0 });
        reporter.update(3, 10, 'three of ten');
        await waitFor(extra.mcpReq.signal, released);
        reporter.end();
        return textResult('done');
      },
    }),
  ];
  const app: ServerApp = {
    ...(scopes ? { scopes } : {}),
    createServer: () => {
      const server = createMcpServer({ name: 'tasks-test', version: '0.0.0' });
      tasks.attach(server);
      registerTools(server, {}, tools, { tasks });
      return server;
    },
    preflight: (message) => tasks.preflight(message),
    close: () => tasks.close(),
  };
  // Before any server exists: the first request may be a call of a required tool.
  tasks.declare('ask', 'required');
  return {
    app,
    tasks,
    clock,
    aborted,
    release() {
      releaseNow();
    },
  };
}

export { TASKS } from '@mcpkit/test-utils/tasks';

/** One raw 2026-07-28 request over Streamable HTTP (the SDK v2 client has no tasks API): a client that can elicit (`ask`). */
export const rpc = (
  endpoint: string,
  method: string,
  params: Record<string, unknown>,
  options: { optIn?: boolean; headers?: Record<string, string> } = {},
): Promise<RpcAnswer> => rawRpc(endpoint, method, params, { ...options, capabilities: { elicitation: {} } });
