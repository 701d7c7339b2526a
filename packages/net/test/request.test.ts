/** `HttpClient.request`: any method, streamed bodies both ways, under the same policy as `get` (loopback servers only). */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpClient, type HttpClient, HttpError, type NetworkPolicy, systemResolver } from '../src/index.js';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

async function listen(handler: (req: IncomingMessage, body: string, res: import('node:http').ServerResponse) => void) {
  const seen: Seen[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString();
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      handler(req, body, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return { server, port, seen, origin: `http://127.0.0.1:${port}` };
}

async function collect(body: AsyncIterable<Uint8Array>): Promise<string> {
  const parts: Uint8Array[] = [];
  for await (const chunk of body) parts.push(chunk);
  return Buffer.concat(parts).toString();
}

function client(policy: Partial<NetworkPolicy>, limits: { timeoutMs?: number; maxBytes?: number } = {}): HttpClient {
  return createHttpClient({
    policy: { allowPrivateNetwork: false, allowHosts: [], ...policy },
    resolve: systemResolver,
    timeoutMs: limits.timeoutMs ?? 5_000,
    maxBytes: limits.maxBytes ?? 1_000_000,
    maxRedirects: 5,
  });
}

describe('request', () => {
  let a: Awaited<ReturnType<typeof listen>>;
  let b: Awaited<ReturnType<typeof listen>>;
  beforeAll(async () => {
    b = await listen((req, _body, res) => {
      res.end(`b saw ${req.headers.authorization ?? 'no authorization'}`);
    });
    a = await listen((req, body, res) => {
      if (req.url === '/echo') {
        res.setHeader('x-method', req.method ?? '');
        res.end(`echo:${body}`);
      } else if (req.url === '/gzip') {
        res.setHeader('content-encoding', 'gzip');
        res.end(gzipSync('compressed text'));
      } else if (req.url === '/same-origin') {
        res.writeHead(302, { location: '/echo' }).end();
      } else if (req.url === '/other-origin') {
        res.writeHead(302, { location: `${b.origin}/x` }).end();
      } else if (req.url === '/metadata') {
        res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
      } else if (req.url === '/big') {
        res.write('x'.repeat(600));
        res.end('y'.repeat(600));
      } else if (req.url === '/stall') {
        res.write('partial');
      } else {
        res.writeHead(404, 'Nope').end('not here');
      }
    });
  });
  afterAll(async () => {
    a.server.closeAllConnections();
    b.server.closeAllConnections();
    await Promise.all([new Promise((r) => a.server.close(r)), new Promise((r) => b.server.close(r))]);
  });

  it('POSTs a streamed body and streams the answer back, with the method and status', async () => {
    const http = client({ allowPrivateNetwork: true });
    async function* parts() {
      yield new TextEncoder().encode('one,');
      yield new TextEncoder().encode('two');
    }
    const res = await http.request(`${a.origin}/echo`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: parts() });
    expect(res.status).toBe(200);
    expect(res.headers['x-method']).toBe('POST');
    expect(await collect(res.body)).toBe('echo:one,two');
    expect(a.seen.at(-1)?.headers['content-type']).toBe('text/plain');
    await http.close();
  });

  it('returns error statuses with their text and body instead of throwing', async () => {
    const http = client({ allowPrivateNetwork: true });
    const res = await http.request(`${a.origin}/missing`);
    expect([res.status, res.statusText]).toEqual([404, 'Nope']);
    expect(await collect(res.body)).toBe('not here');
    await http.close();
  });

  it('decodes a compressed body', async () => {
    const http = client({ allowPrivateNetwork: true });
    const res = await http.request(`${a.origin}/gzip`);
    expect(await collect(res.body)).toBe('compressed text');
    await http.close();
  });

  it('refuses loopback unless allowed, before connecting', async () => {
    const before = a.seen.length;
    const error = await client({})
      .request(`${a.origin}/echo`, { method: 'POST', body: new Uint8Array([1]) })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HttpError);
    expect((error as HttpError).kind).toBe('blocked');
    expect((error as Error).message).toContain('loopback');
    expect(a.seen.length).toBe(before);
  });

  it('an allowed host may be reached, other loopback ports may not', async () => {
    const http = client({ allowHosts: [{ host: '127.0.0.1', port: a.port }] });
    const res = await http.request(`${a.origin}/echo`);
    expect(await collect(res.body)).toBe('echo:');
    const error = await http.request(`${b.origin}/`).catch((e: unknown) => e);
    expect((error as HttpError).kind).toBe('blocked');
    await http.close();
  });

  it('follows GET redirects, re-checking every hop against the policy and the caller', async () => {
    const http = client({ allowHosts: [{ host: '127.0.0.1', port: a.port }] });
    const same = await http.request(`${a.origin}/same-origin`);
    expect(same.url).toBe(`${a.origin}/echo`);
    await same.cancel();
    const toB = await http.request(`${a.origin}/other-origin`).catch((e: unknown) => e);
    expect((toB as HttpError).kind).toBe('blocked');
    expect((toB as Error).message).toContain(`redirected to ${b.origin}/x`);
    const meta = await client({ allowPrivateNetwork: true })
      .request(`${a.origin}/metadata`)
      .catch((e: unknown) => e);
    expect((meta as Error).message).toContain('cloud metadata');
    const hook = await client({ allowPrivateNetwork: true })
      .request(`${a.origin}/same-origin`, {
        checkUrl: (url) => {
          if (url.pathname === '/echo') throw new Error('no echo for you');
        },
      })
      .catch((e: unknown) => e);
    expect((hook as HttpError).kind).toBe('blocked');
    expect((hook as Error).message).toBe(`redirected to ${a.origin}/echo; no echo for you`);
    await http.close();
  });

  it('drops Authorization and Cookie on a redirect to another origin, keeps them on the same origin', async () => {
    const http = client({ allowPrivateNetwork: true });
    const headers = { authorization: 'Basic c2VjcmV0', cookie: 'a=b' };
    const other = await http.request(`${a.origin}/other-origin`, { headers });
    expect(await collect(other.body)).toBe('b saw no authorization');
    expect(b.seen.at(-1)?.headers.cookie).toBeUndefined();
    await (await http.request(`${a.origin}/same-origin`, { headers })).cancel();
    expect(a.seen.at(-1)?.headers.authorization).toBe('Basic c2VjcmV0');
    await http.close();
  });

  it('does not follow redirects of other methods (the body cannot be replayed)', async () => {
    const http = client({ allowPrivateNetwork: true });
    const res = await http.request(`${a.origin}/same-origin`, { method: 'POST', body: new Uint8Array([1, 2]) });
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe('/echo');
    await res.cancel();
    await http.close();
  });

  it('fails the body iteration past the size limit', async () => {
    const http = client({ allowPrivateNetwork: true }, { maxBytes: 1000 });
    const res = await http.request(`${a.origin}/big`);
    const error = await collect(res.body).catch((e: unknown) => e);
    expect((error as HttpError).kind).toBe('too-large');
    await http.close();
  });

  it('bounds the whole exchange, body included, by the deadline', async () => {
    const http = client({ allowPrivateNetwork: true }, { timeoutMs: 300 });
    const res = await http.request(`${a.origin}/stall`);
    const error = await collect(res.body).catch((e: unknown) => e);
    expect((error as HttpError).kind).toBe('timeout');
    await http.close();
  });

  it('rejects with the signal reason once aborted', async () => {
    const http = client({ allowPrivateNetwork: true });
    const controller = new AbortController();
    const res = await http.request(`${a.origin}/stall`, { signal: controller.signal });
    const reading = collect(res.body).catch((e: unknown) => e);
    controller.abort(new Error('stop'));
    expect(((await reading) as Error).message).toBe('stop');
    await http.close();
  });
});
