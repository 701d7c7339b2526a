// biome-ignore-all lint/suspicious/noTemplateCurlyInString: `${NAME}` in plain strings is the config file syntax under test.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createRegistry, type HttpServerConfig, parseServersConfig } from '../src/index.js';

interface Seen {
  method: string;
  path: string;
  apiKey?: string;
}

function echoServer(): McpServer {
  const server = new McpServer({ name: 'http-echo', version: '1.0.0' });
  server.registerTool('echo', { description: 'Echo', inputSchema: { text: z.string() } }, async ({ text }) => ({
    content: [{ type: 'text', text }],
  }));
  return server;
}

/** A node:http server on 127.0.0.1 that records every request's method, path and X-Api-Key. */
async function listen(handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>) {
  const seen: Seen[] = [];
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const apiKey = req.headers['x-api-key'];
    seen.push({ method: req.method ?? '', path: url.pathname, ...(typeof apiKey === 'string' ? { apiKey } : {}) });
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    seen,
    origin: `http://127.0.0.1:${port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Streamable HTTP, stateful: one transport and one McpServer per session, at /mcp. */
function streamableHandler() {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  return async (req: IncomingMessage, res: ServerResponse) => {
    if (new URL(req.url ?? '/', 'http://localhost').pathname !== '/mcp') {
      res.writeHead(404).end();
      return;
    }
    const id = req.headers['mcp-session-id'];
    const existing = typeof id === 'string' ? sessions.get(id) : undefined;
    if (existing) return existing.handleRequest(req, res);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (sessionId) => void sessions.set(sessionId, transport),
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await echoServer().connect(transport);
    await transport.handleRequest(req, res);
  };
}

/** The legacy HTTP+SSE transport only: GET /sse opens the stream, POST /messages?sessionId= carries messages. */
function legacySseHandler() {
  const sessions = new Map<string, SSEServerTransport>();
  return async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname === '/sse' && req.method === 'GET') {
      const transport = new SSEServerTransport('/messages', res);
      sessions.set(transport.sessionId, transport);
      await echoServer().connect(transport);
      return;
    }
    if (url.pathname === '/messages' && req.method === 'POST') {
      const transport = sessions.get(url.searchParams.get('sessionId') ?? '');
      if (transport) return transport.handlePostMessage(req, res);
    }
    res.writeHead(url.pathname === '/sse' ? 405 : 404, { Allow: 'GET' }).end();
  };
}

function text(result: { content?: unknown }): string {
  return (result.content as { text?: string }[]).map((c) => c.text ?? '').join('');
}

function httpConfig(name: string, url: string, entry: Record<string, unknown> = {}): HttpServerConfig {
  const [config] = parseServersConfig(
    { mcpServers: { [name]: { url, headers: { 'X-Api-Key': '${env:TEST_API_KEY}' }, ...entry } } },
    { baseDir: '/', env: { TEST_API_KEY: 'key-123' } },
  );
  return config as HttpServerConfig;
}

describe('HTTP servers', () => {
  let streamable: Awaited<ReturnType<typeof listen>>;
  let legacy: Awaited<ReturnType<typeof listen>>;

  beforeAll(async () => {
    streamable = await listen(streamableHandler());
    legacy = await listen(legacySseHandler());
  });

  afterAll(async () => {
    await streamable?.close();
    await legacy?.close();
  });

  it('Streamable HTTP: connects, calls a tool, sends the configured headers, ends the session on close', async () => {
    streamable.seen.length = 0;
    const registry = await createRegistry([httpConfig('web', `${streamable.origin}/mcp`)]);
    expect(registry.servers).toEqual([
      { name: 'web', status: 'connected', tools: 1, serverInfo: { name: 'http-echo', version: '1.0.0' }, protocolVersion: '2025-11-25' },
    ]);
    expect(text(await registry.callTool('web__echo', { text: 'over http' }))).toBe('over http');
    await registry.close();
    const posts = streamable.seen.filter((s) => s.method === 'POST');
    expect(posts.length).toBeGreaterThanOrEqual(4); // initialize, initialized, tools/list, tools/call
    expect(streamable.seen.every((s) => s.apiKey === 'key-123')).toBe(true);
    expect(streamable.seen.filter((s) => s.method === 'DELETE')).toHaveLength(1);
  });

  it('auto: falls back to legacy SSE when the Streamable HTTP POST gets a 4xx, headers included', async () => {
    legacy.seen.length = 0;
    await using registry = await createRegistry([httpConfig('old', `${legacy.origin}/sse`)]);
    expect(registry.servers[0]).toMatchObject({ name: 'old', status: 'connected', tools: 1 });
    expect(text(await registry.callTool('old__echo', { text: 'over sse' }))).toBe('over sse');
    expect(legacy.seen[0]).toMatchObject({ method: 'POST', path: '/sse' }); // the Streamable attempt (405)
    expect(legacy.seen.some((s) => s.method === 'GET' && s.path === '/sse')).toBe(true);
    expect(legacy.seen.some((s) => s.method === 'POST' && s.path === '/messages')).toBe(true);
    expect(legacy.seen.every((s) => s.apiKey === 'key-123')).toBe(true);
  });

  it('"streamable-http" does not fall back: the server is reported failed with the HTTP status', async () => {
    const notices: string[] = [];
    await using registry = await createRegistry([httpConfig('old', `${legacy.origin}/sse?token=secret`, { type: 'streamable-http' })], {
      host: { onNotice: (t) => notices.push(t) },
    });
    expect(registry.servers[0]).toMatchObject({ status: 'failed', error: `old: could not connect to ${legacy.origin}/sse: HTTP 405` });
    expect(notices).toEqual([`old: could not connect to ${legacy.origin}/sse: HTTP 405`]);
  });

  it('auto: when both transports get a 4xx, both are named', async () => {
    await using registry = await createRegistry([httpConfig('lost', `${streamable.origin}/nowhere`)]);
    expect(registry.servers[0]?.error).toBe(
      `lost: could not connect to ${streamable.origin}/nowhere: HTTP 404 with Streamable HTTP, HTTP 404 with legacy SSE`,
    );
  });

  it('connection refused is a failed server with a one-line reason, and the others go on', async () => {
    const closed = await listen(async () => {});
    await closed.close();
    await using registry = await createRegistry([
      httpConfig('down', `${closed.origin}/mcp`),
      httpConfig('web', `${streamable.origin}/mcp`),
    ]);
    expect(registry.servers.map((s) => [s.name, s.status, s.error])).toEqual([
      ['down', 'failed', `down: could not connect to ${closed.origin}/mcp: connection refused (ECONNREFUSED)`],
      ['web', 'connected', undefined],
    ]);
    expect(text(await registry.callTool('web__echo', { text: 'ok' }))).toBe('ok');
  });
});
