import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createSessionEventStore, markResumable } from '@mcpkit/protocol-core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createConformanceServer } from '../../src/profiles/conformance/index.js';
import { createTestClock } from '../clock.js';
import { firstText } from './helpers.js';

/**
 * `test_reconnection` over real Streamable HTTP (scenario `server-sse-polling`, SEP-1699). The transport is
 * built here the way the runner builds its sessions' transports once it has an event store: one
 * `createSessionEventStore()` per session and `markResumable`. `resumable: false` is the runner today. The tool's
 * work (`reconnectionWorkMs`) runs on `clock`; the HTTP transports and the SDK client keep their real timers.
 */
async function serve({ resumable }: { resumable: boolean }) {
  const clock = createTestClock();
  const transports = new Map<string, StreamableHTTPServerTransport>();
  const servers: { close(): Promise<void> }[] = [];
  const http: Server = createServer(async (req, res) => {
    const id = req.headers['mcp-session-id'];
    const existing = typeof id === 'string' ? transports.get(id) : undefined;
    if (existing) return existing.handleRequest(req, res);
    const server = createConformanceServer({ scheduler: clock.scheduler });
    servers.push(server);
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sid) => {
        transports.set(sid, transport);
      },
      ...(resumable ? { eventStore: createSessionEventStore(), retryInterval: 20 } : {}),
    });
    if (resumable) markResumable(transport);
    await server.connect(transport);
    await transport.handleRequest(req, res);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  return {
    url,
    clock,
    async close() {
      await Promise.allSettled(servers.map((s) => s.close()));
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    },
  };
}

interface SseEvent {
  id?: string;
  retry?: number;
  data: string;
}

/** Reads a whole SSE body (until the server ends it) into events. */
async function readSse(body: ReadableStream<Uint8Array>, stopWhen: (e: SseEvent) => boolean = () => false): Promise<SseEvent[]> {
  const events: SseEvent[] = [];
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let end = buffer.indexOf('\n\n');
    while (end >= 0) {
      const event: SseEvent = { data: '' };
      for (const line of buffer.slice(0, end).split('\n')) {
        const [field, ...rest] = line.split(':');
        const text = rest.join(':').replace(/^ /, '');
        if (field === 'id') event.id = text;
        else if (field === 'retry') event.retry = Number(text);
        else if (field === 'data') event.data += text;
      }
      buffer = buffer.slice(end + 2);
      events.push(event);
      if (stopWhen(event)) {
        await reader.cancel();
        return events;
      }
      end = buffer.indexOf('\n\n');
    }
  }
  return events;
}

const isResponse = (e: SseEvent) => e.data !== '' && (JSON.parse(e.data) as { id?: unknown }).id === 1;

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function session(url: string) {
  const client = new Client({ name: 'reconnection-test', version: '0.0.0' }, { capabilities: {} });
  const transport = new StreamableHTTPClientTransport(new URL(url));
  await client.connect(transport);
  cleanups.push(() => client.close());
  return { client, sessionId: transport.sessionId! };
}

/** POSTs a `tools/call` of `test_reconnection` in `sessionId` with a raw `fetch`, to read its SSE stream as it comes. */
function postReconnection(url: string, sessionId: string, protocolVersion = '2025-03-26'): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'text/event-stream, application/json',
      'mcp-session-id': sessionId,
      'mcp-protocol-version': protocolVersion,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'test_reconnection', arguments: {} } }),
  });
}

describe('test_reconnection over Streamable HTTP with a session event store', () => {
  it('as the suite calls it (MCP-Protocol-Version 2025-03-26, no priming event): log event, stream closed, result replayed after Last-Event-ID', async () => {
    const http = await serve({ resumable: true });
    cleanups.push(http.close);
    const { sessionId } = await session(http.url);
    const post = await postReconnection(http.url, sessionId);
    expect(post.headers.get('content-type')).toContain('text/event-stream');
    const first = await readSse(post.body!);
    // One event, the log message, with an id; the stream ends before the response.
    expect(first).toHaveLength(1);
    expect(first[0]?.id).toMatch(/\S/);
    expect(JSON.parse(first[0]!.data)).toMatchObject({ method: 'notifications/message', params: { level: 'info' } });

    const get = await fetch(http.url, {
      headers: {
        accept: 'text/event-stream',
        'mcp-session-id': sessionId,
        'mcp-protocol-version': '2025-03-26',
        'last-event-id': first[0]!.id!,
      },
    });
    expect(get.status).toBe(200);
    const replayed = await http.clock.run(readSse(get.body!, isResponse));
    const response = JSON.parse(replayed.find(isResponse)!.data) as { result: CallToolResult };
    expect(response.result.isError).toBeFalsy();
    expect(firstText(response.result)).toMatch(/^Reconnection test completed successfully: the response stream was closed mid-call/);
  });

  it('a 2025-11-25 client gets a priming event with retry, and the SDK client resumes on its own', async () => {
    const http = await serve({ resumable: true });
    cleanups.push(http.close);
    const { client, sessionId } = await session(http.url);
    const post = await postReconnection(http.url, sessionId, '2025-11-25');
    const events = await readSse(post.body!);
    expect(events[0]).toEqual({ id: expect.any(String), retry: 20, data: '' });
    expect(events.some(isResponse)).toBe(false);

    const result = (await http.clock.run(client.callTool({ name: 'test_reconnection', arguments: {} }))) as CallToolResult;
    expect(firstText(result)).toMatch(/^Reconnection test completed successfully/);
  });

  it('another session cannot replay this session’s events', async () => {
    const http = await serve({ resumable: true });
    cleanups.push(http.close);
    const a = await session(http.url);
    const b = await session(http.url);
    const post = await postReconnection(http.url, a.sessionId);
    const [event] = await readSse(post.body!);
    const get = await fetch(http.url, {
      headers: {
        accept: 'text/event-stream',
        'mcp-session-id': b.sessionId,
        'mcp-protocol-version': '2025-03-26',
        'last-event-id': event!.id!,
      },
    });
    expect(get.status).toBeGreaterThanOrEqual(400);
  });
});

describe('test_reconnection over Streamable HTTP without an event store (the runner today)', () => {
  it('keeps the stream open and answers on it', async () => {
    const http = await serve({ resumable: false });
    cleanups.push(http.close);
    const { sessionId } = await session(http.url);
    const post = await postReconnection(http.url, sessionId);
    const events = await http.clock.run(readSse(post.body!));
    expect(events.map((e) => e.id)).toEqual([undefined, undefined]);
    const response = JSON.parse(events.find(isResponse)!.data) as { result: CallToolResult };
    expect(firstText(response.result)).toMatch(/^Reconnection test completed without closing the stream/);
  });
});
