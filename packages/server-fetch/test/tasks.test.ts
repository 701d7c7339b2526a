/**
 * `fetch` as a task (the 2026-07-28 tasks extension), over HTTP with raw JSON-RPC, on the CLI's own app
 * (`createFetchApp`): a call that opts in gets a task whose result is the inline call's, its download progress
 * is the task's status message, tasks/cancel closes the download, and a call that does not opt in is answered
 * inline exactly as by a server without tasks.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { silentLogger } from '@mcpkit/protocol-core';
import { type HttpFixture, startHttp } from '@mcpkit/protocol-core/testing';
import { rpc, TASKS, untilTerminal } from '@mcpkit/test-utils/tasks';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createFetchApp } from '../src/app.js';
import { createFetcher } from '../src/fetcher.js';
import { createFetchServer } from '../src/server.js';
import { routes, send, startServer, type TestServer } from './helpers.js';

/** Sends the headers and half the declared body, then holds the connection until the client closes it. */
function stall() {
  const state = {
    closed: false,
    handler: (req: IncomingMessage, res: ServerResponse) => {
      req.socket.once('close', () => {
        state.closed = true;
      });
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '200000' });
      res.write('x'.repeat(100_000));
    },
  };
  return state;
}

const stalled = stall();
let site: TestServer;
let withTasks: HttpFixture;
let withoutTasks: HttpFixture;

beforeAll(async () => {
  site = await startServer(
    routes({ '/doc': send('# Title\n\nA plain document, converted the same way each time.\n', 'text/plain'), '/stall': stalled.handler }),
  );
  const fetcherOptions = { allowHosts: [`127.0.0.1:${site.port}`], ignoreRobotsTxt: true, timeoutMs: 60_000, logger: silentLogger };
  withTasks = await startHttp(createFetchApp(fetcherOptions));
  const fetcher = createFetcher(fetcherOptions);
  withoutTasks = await startHttp({ createServer: (context) => createFetchServer({ fetcher }, context), close: () => fetcher.close() });
});
afterAll(async () => {
  await withTasks?.[Symbol.asyncDispose]();
  await withoutTasks?.[Symbol.asyncDispose]();
  await site?.close();
});

/** What a tool answered (content, structuredContent, isError), without the envelope's `_meta` and `resultType`. */
function toolAnswer(result: Record<string, unknown> | undefined): unknown {
  const { _meta: _envelope, resultType: _type, ...answer } = result ?? {};
  return sansDownloadId(answer);
}

/** The result without the download's id (each download gets its own). */
function sansDownloadId(result: Record<string, unknown> | undefined): unknown {
  const structured = { ...(result?.structuredContent as Record<string, unknown>) };
  delete structured.downloadId;
  const content = ((result?.content ?? []) as Array<{ type: string; text?: string }>).map((c) => ({
    ...c,
    ...(c.text !== undefined ? { text: c.text.replace(/downloadId[^\n]*/g, '') } : {}),
  }));
  return { ...result, structuredContent: structured, content };
}

describe('fetch as a task', () => {
  it('lists the tasks extension in server/discover', async () => {
    const { result } = await rpc(withTasks.endpoint, 'server/discover', {});
    expect(result?.capabilities).toMatchObject({ extensions: { [TASKS]: {} } });
  });

  it('answers an opted-in call with a task that completes with the inline result, structuredContent included', async () => {
    const args = { name: 'fetch', arguments: { url: `${site.origin}/doc` } };
    const { result: created, error } = await rpc(withTasks.endpoint, 'tools/call', args);
    expect(error).toBeUndefined();
    expect(created).toMatchObject({ resultType: 'task', status: 'working' });
    const done = await untilTerminal(withTasks.endpoint, created?.taskId as string);
    expect(done.status).toBe('completed');
    const inline = (await rpc(withTasks.endpoint, 'tools/call', args, { optIn: false })).result;
    expect(inline?.structuredContent).toMatchObject({ status: 200, contentType: 'text/plain' });
    expect(toolAnswer(done.result as Record<string, unknown>)).toEqual(toolAnswer(inline));
  });

  it('shows the download progress as the status message, and tasks/cancel closes the download', async () => {
    const { result: created } = await rpc(withTasks.endpoint, 'tools/call', { name: 'fetch', arguments: { url: `${site.origin}/stall` } });
    expect(created).toMatchObject({ resultType: 'task' });
    const taskId = created?.taskId as string;
    const working = await untilTerminal(withTasks.endpoint, taskId, {
      until: (task) => String(task.statusMessage ?? '').startsWith('Downloaded'),
    });
    expect(working).toMatchObject({ status: 'working' });
    expect(stalled.closed).toBe(false);
    const { error } = await rpc(withTasks.endpoint, 'tasks/cancel', { taskId });
    expect(error).toBeUndefined();
    await vi.waitFor(() => expect(stalled.closed).toBe(true), { timeout: 10_000, interval: 10 });
    expect((await untilTerminal(withTasks.endpoint, taskId)).status).toBe('cancelled');
  });

  it('answers a call that does not opt in inline, exactly as a server without tasks', async () => {
    const args = { name: 'fetch', arguments: { url: `${site.origin}/doc`, max_length: 20 } };
    const ours = await rpc(withTasks.endpoint, 'tools/call', args, { optIn: false });
    const before = await rpc(withoutTasks.endpoint, 'tools/call', args, { optIn: false });
    expect(ours.result?.resultType).not.toBe('task');
    expect(sansDownloadId(ours.result)).toEqual(sansDownloadId(before.result));
    const badArgs = { name: 'fetch', arguments: { url: 'not a url' } };
    expect(await rpc(withTasks.endpoint, 'tools/call', badArgs, { optIn: false })).toEqual(
      await rpc(withoutTasks.endpoint, 'tools/call', badArgs, { optIn: false }),
    );
  });
});
