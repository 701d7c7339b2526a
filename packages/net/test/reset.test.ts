/** A kept-alive connection reset under a request (the server closed it just as it was reused). Loopback only. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createHttpClient, HttpError, systemResolver } from '../src/index.js';

/**
 * Answers the first GET on each connection; a later request on the same connection gets the connection
 * reset, as does every POST.
 */
async function resettingServer() {
  const served = new WeakMap<Socket, number>();
  let connections = 0;
  let resets = 0;
  let posts = 0;
  const server: Server = createServer((req, res) => {
    const n = (served.get(req.socket) ?? 0) + 1;
    served.set(req.socket, n);
    if (req.method === 'POST') posts++;
    if (n > 1 || req.method === 'POST') {
      resets++;
      req.socket.destroy();
      return;
    }
    req.resume();
    req.on('end', () => res.end(`${req.method} ${req.url}`));
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { server, origin, stats: () => ({ connections, resets, posts }) };
}

const client = () =>
  createHttpClient({
    policy: { allowPrivateNetwork: true, allowHosts: [] },
    resolve: systemResolver,
    timeoutMs: 5_000,
    maxBytes: 1_000_000,
    maxRedirects: 5,
  });

describe('a reused connection reset before the answer', () => {
  let server: Server | undefined;
  afterEach(() => {
    server?.closeAllConnections();
    server?.close();
  });

  it('a GET (or HEAD) is sent once more on a new connection', async () => {
    const s = await resettingServer();
    server = s.server;
    const http = client();
    // undici reuses an idle connection for some of these: each reuse is reset by the server.
    for (let i = 0; i < 6; i++) {
      const got = await http.get(`${s.origin}/get-${i}`, { userAgent: 'test' });
      expect(got.body.toString()).toBe(`GET /get-${i}`);
      const streamed = await http.request(`${s.origin}/request-${i}`);
      expect(streamed.status).toBe(200);
      const parts: Uint8Array[] = [];
      for await (const chunk of streamed.body) parts.push(chunk);
      expect(Buffer.concat(parts).toString()).toBe(`GET /request-${i}`);
    }
    const { connections, resets } = s.stats();
    expect(resets).toBeGreaterThan(0);
    // Every connection answers exactly one request: twelve answers, twelve connections.
    expect(connections).toBe(12);
  });

  it('a request with a body is not replayed: the reset is reported, after one attempt', async () => {
    const s = await resettingServer();
    server = s.server;
    const http = client();
    const error = await http.request(`${s.origin}/post`, { method: 'POST', body: new TextEncoder().encode('x') }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HttpError);
    expect(s.stats().posts).toBe(1);
  });
});
