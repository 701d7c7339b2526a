// The WebSocket runner (`--transport ws`) through real clients: the v1 SDK's `WebSocketClientTransport`, and the
// `ws` library's client for what that one cannot send (headers, other subprotocols, raw frames).
import type { IncomingMessage } from 'node:http';
import { connect } from 'node:net';
import { WebSocketClientTransport } from '@modelcontextprotocol/sdk/client/websocket.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { WebSocket } from 'ws';
import { type RunningWsServer, serveWs, type WsOptions } from '../src/index.js';
import { connectWs, newV2Client } from '../src/testing/index.js';
import { createDemoServer } from './fixtures/demoServer.js';

const app = () => ({ createServer: () => createDemoServer('ws') });

async function start(options: Partial<WsOptions> = {}): Promise<RunningWsServer & AsyncDisposable> {
  const running = await serveWs(app(), { host: '127.0.0.1', port: 0, ...options });
  return Object.assign(running, { [Symbol.asyncDispose]: () => running.close() });
}

type Opened =
  | { ws: WebSocket; status?: undefined }
  | { ws?: undefined; status: number; headers: IncomingMessage['headers']; message: string };

/** Opens a WebSocket with the `ws` client; a refused upgrade gives its HTTP status, headers and JSON-RPC error message. */
function open(url: string, protocols: string[] = ['mcp'], options: ConstructorParameters<typeof WebSocket>[2] = {}): Promise<Opened> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, protocols, options);
    ws.once('open', () => resolve({ ws }));
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (c: Buffer) => {
        body += c.toString('utf8');
      });
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          message: (JSON.parse(body) as { error: { message: string } }).error.message,
        }),
      );
    });
    ws.once('error', (error) => reject(error));
  });
}

/** The next text frame, parsed. */
const nextMessage = (ws: WebSocket) =>
  new Promise<Record<string, unknown>>((resolve) => ws.once('message', (data) => resolve(JSON.parse(String(data)))));
const closed = (ws: WebSocket) => new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
});

afterEach(() => {
  vi.useRealTimers();
});

describe('the WebSocket runner with the v1 SDK client', () => {
  it('serves each connection its own server: state is not shared, and a closed connection frees its slot', async () => {
    await using server = await start();
    expect(server.endpoint).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const a = await connectWs(server.endpoint, 'a');
    const b = await connectWs(server.endpoint, 'b');
    expect((await a.listTools()).tools.map((t) => t.name)).toContain('count');
    const call = (client: typeof a, marker: string) => client.callTool({ name: 'count', arguments: { marker } });
    expect((await call(a, 'a1')).structuredContent).toEqual({ marker: 'a1', calls: 1 });
    expect((await call(a, 'a2')).structuredContent).toEqual({ marker: 'a2', calls: 2 });
    expect((await call(b, 'b1')).structuredContent).toEqual({ marker: 'b1', calls: 1 });
    expect(server.sessionCount()).toBe(2);
    await a.close();
    await vi.waitFor(() => expect(server.sessionCount()).toBe(1));
    await b.close();
  });

  it('pins each connection to the era its opening selects: a 2026-07-28 client and a 2025 one side by side', async () => {
    await using server = await start();
    const legacy = await connectWs(server.endpoint); // also puts the global WebSocket in place on Node 20
    // The v2 client over the v1 SDK's WebSocket client transport (the v2 SDK ships none).
    const modern = newV2Client({ mode: '2026-07-28' });
    await modern.connect(new WebSocketClientTransport(new URL(server.endpoint)) as unknown as Parameters<typeof modern.connect>[0]);
    expect(modern.getProtocolEra()).toBe('modern');
    expect((await modern.callTool({ name: 'count', arguments: { marker: 'm' } })).structuredContent).toEqual({ marker: 'm', calls: 1 });
    expect((await modern.callTool({ name: 'count', arguments: { marker: 'm' } })).structuredContent).toEqual({ marker: 'm', calls: 2 });
    expect((await legacy.callTool({ name: 'count', arguments: { marker: 'l' } })).structuredContent).toEqual({ marker: 'l', calls: 1 });
    await Promise.all([modern.close(), legacy.close()]);
  });

  it('close() ends every connection, its client told 1000, and closes the app', async () => {
    let appClosed = false;
    const close = () => {
      appClosed = true;
    };
    const server = await serveWs({ ...app(), close }, { host: '127.0.0.1', port: 0 });
    const { ws } = await open(server.endpoint);
    ws!.send(INITIALIZE);
    await nextMessage(ws!);
    const code = closed(ws!);
    await server.close();
    expect(await code).toBe(1000);
    expect(appClosed).toBe(true);
    expect(server.sessionCount()).toBe(0);
  });

  it('answers plain HTTP on /mcp with 426 and serves /healthz', async () => {
    await using server = await start();
    const http = server.url.replace(/^ws:/, 'http:');
    const res = await fetch(`${http}/mcp`);
    expect(res.status).toBe(426);
    expect(await res.json()).toMatchObject({ error: { message: expect.stringContaining('WebSocket endpoint') } });
    expect((await fetch(`${http}/healthz`)).status).toBe(200);
  });
});

describe('the WebSocket runner refuses an upgrade before any WebSocket opens', () => {
  it('a foreign Host: 403', async () => {
    await using server = await start();
    const refused = await open(server.endpoint, ['mcp'], { headers: { Host: 'evil.example' } });
    expect(refused).toMatchObject({ status: 403, message: expect.stringContaining('Host header "evil.example" is not allowed') });
    expect(server.sessionCount()).toBe(0);
  });

  it('a foreign Origin: 403; an --allowed-origin one opens', async () => {
    await using server = await start({ allowedOrigins: ['https://app.example.com'] });
    expect(await open(server.endpoint, ['mcp'], { origin: 'https://evil.example' })).toMatchObject({
      status: 403,
      message: expect.stringContaining('Origin "https://evil.example" is not allowed'),
    });
    const ok = await open(server.endpoint, ['mcp'], { origin: 'https://app.example.com' });
    expect(ok.ws?.protocol).toBe('mcp');
    ok.ws?.close();
  });

  it('no subprotocol, or another one: 400 naming mcp', async () => {
    await using server = await start();
    for (const protocols of [[], ['graphql-ws']]) {
      expect(await open(server.endpoint, protocols)).toMatchObject({
        status: 400,
        message: expect.stringContaining('the WebSocket subprotocol must be "mcp"'),
      });
    }
    const ok = await open(server.endpoint, ['graphql-ws', 'mcp']);
    expect(ok.ws?.protocol).toBe('mcp');
    ok.ws?.close();
  });

  it('with --auth-token: no token or a wrong one gets 401 and a challenge, the right header opens', async () => {
    await using server = await start({ authToken: 's3cret' });
    const none = await open(server.endpoint);
    expect(none).toMatchObject({ status: 401, headers: { 'www-authenticate': 'Bearer realm="mcp"' } });
    const wrong = await open(server.endpoint, ['mcp'], { headers: { Authorization: 'Bearer nope' } });
    expect(wrong).toMatchObject({ status: 401, headers: { 'www-authenticate': 'Bearer realm="mcp", error="invalid_token"' } });
    const { ws } = await open(server.endpoint, ['mcp'], { headers: { Authorization: 'Bearer s3cret' } });
    if (!ws) throw new Error('the upgrade with the token was refused');
    ws.send(INITIALIZE);
    expect(await nextMessage(ws)).toMatchObject({ id: 1, result: { serverInfo: { name: 'demo' } } });
    ws.close();
  });

  it('a request target that does not parse as a URL: 404, and the server goes on', async () => {
    await using server = await start();
    const { port } = new URL(server.url);
    const answer = await new Promise<string>((resolve) => {
      const socket = connect(Number(port), '127.0.0.1', () =>
        socket.write(
          `GET http://[ HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
            'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: mcp\r\n\r\n',
        ),
      );
      let text = '';
      socket.on('data', (chunk: Buffer) => {
        text += chunk.toString('utf8');
      });
      socket.on('close', () => resolve(text));
    });
    expect(answer).toMatch(/^HTTP\/1\.1 404 /);
    const next = await open(server.endpoint);
    expect(next.ws?.protocol).toBe('mcp');
    next.ws?.close();
  });

  it('--max-sessions counts connections: one more gets 503 until one closes', async () => {
    await using server = await start({ maxSessions: 1 });
    const first = await open(server.endpoint);
    expect(await open(server.endpoint)).toMatchObject({ status: 503, headers: { 'retry-after': '5' } });
    const gone = closed(first.ws!);
    first.ws?.close();
    await gone;
    await vi.waitFor(() => expect(server.sessionCount()).toBe(0));
    const next = await open(server.endpoint);
    expect(next.ws).toBeDefined();
    next.ws?.close();
  });
});

describe('frames on an open connection', () => {
  it('text that is not JSON gets -32700 with id null, and the connection goes on', async () => {
    await using server = await start();
    const { ws } = await open(server.endpoint);
    ws!.send('{not json');
    expect(await nextMessage(ws!)).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, message: 'Parse error: the message is not valid JSON' },
    });
    ws!.send(JSON.stringify({ jsonrpc: '2.0', id: 7, method: 42 }));
    expect(await nextMessage(ws!)).toMatchObject({ id: 7, error: { code: -32600 } });
    ws!.send(INITIALIZE);
    expect(await nextMessage(ws!)).toMatchObject({ id: 1, result: { protocolVersion: '2025-11-25' } });
    ws!.close();
  });

  it('a frame over the message cap closes the connection with 1009', async () => {
    await using server = await start({ maxMessageBytes: 1024 });
    const { ws } = await open(server.endpoint);
    const code = closed(ws!);
    ws!.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: 'x'.repeat(2048) } }));
    expect(await code).toBe(1009);
    await vi.waitFor(() => expect(server.sessionCount()).toBe(0));
  });

  it('a binary frame closes the connection with 1003', async () => {
    await using server = await start();
    const { ws } = await open(server.endpoint);
    const code = closed(ws!);
    ws!.send(Buffer.from(INITIALIZE), { binary: true });
    expect(await code).toBe(1003);
  });

  it('a client that does not answer pings is cut off after the next interval', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    await using server = await start({ pingIntervalMs: 10_000 });
    const { ws } = await open(server.endpoint, ['mcp'], { autoPong: false });
    const pinged = new Promise<void>((resolve) => ws!.once('ping', () => resolve()));
    const code = closed(ws!);
    vi.advanceTimersByTime(10_000);
    await pinged;
    expect(server.sessionCount()).toBe(1);
    vi.advanceTimersByTime(10_000);
    expect(await code).toBe(1006);
    expect(server.sessionCount()).toBe(0);
  });
});
