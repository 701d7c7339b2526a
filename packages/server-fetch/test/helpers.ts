import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { createServer as createTcpServer, connect as netConnect } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { connectInMemory, type InMemoryPair } from '@mcpkit/protocol-core/testing';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { expect } from 'vitest';
import { createFetchServer, type FetchServerOptions } from '../src/server.js';

export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
}

export interface TestServer extends AsyncDisposable {
  /** `http://127.0.0.1:<port>` (no trailing slash). */
  origin: string;
  port: number;
  requests: SeenRequest[];
  /** Requests to `path` seen so far. */
  hits(path: string): number;
  close(): Promise<void>;
}

export type Handler = (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;

/** Listens on 127.0.0.1 with a free port; `close` also drops open keep-alive connections. */
async function listenOnLoopback(server: Server): Promise<{ port: number; close: () => Promise<void> }> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return { port, close };
}

/** A real HTTP server on 127.0.0.1 with a free port. */
export async function startServer(handler: Handler): Promise<TestServer> {
  const requests: SeenRequest[] = [];
  const server: Server = createServer((req, res) => {
    requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
    Promise.resolve(handler(req, res)).catch((error) => {
      res.statusCode = 500;
      res.end(String(error));
    });
  });
  const { port, close } = await listenOnLoopback(server);
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    requests,
    hits: (path) => requests.filter((r) => r.url === path).length,
    close,
    [Symbol.asyncDispose]: close,
  };
}

/** Routes by path; unknown paths get 404 (so robots.txt is "absent" unless a route says otherwise). */
export function routes(table: Record<string, Handler>): Handler {
  return (req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const route = table[path] ?? table[req.url ?? ''];
    if (route) return route(req, res);
    res.statusCode = 404;
    res.end('not found');
  };
}

/** A redirect answer (no body) to `location`. */
export function redirect(location: string, status = 301): Handler {
  return (_req, res) => {
    res.statusCode = status;
    res.setHeader('location', location);
    res.end();
  };
}

export function send(body: string | Buffer, contentType?: string, status = 200): Handler {
  return (_req, res) => {
    res.statusCode = status;
    if (contentType) res.setHeader('content-type', contentType);
    res.end(body);
  };
}

/** A page whose Markdown is exactly `body` (one paragraph of plain words). */
export function paragraphPage(body: string): string {
  return `<html><head><title>T</title></head><body><article><p>${body}</p></article></body></html>`;
}

export const CHUNK = 'word '.repeat(200); // 1000 bytes
export const CHUNKS = 8;

/**
 * 8 KB of text/plain with a Content-Length, one kilobyte every 150 ms: a download slow enough to report progress. The
 * pace is this fixture's declared behaviour, not a wait in a test: the server's progress reporter (protocol-core's)
 * is throttled on the real clock (nothing within 250 ms, then one per 500 ms), so only a body that takes longer than
 * that (8 × 150 ms) gets notifications, as a slow site's would; over stdio no test clock can reach the server.
 */
export async function drip(_req: unknown, res: ServerResponse): Promise<void> {
  res.setHeader('content-type', 'text/plain');
  res.setHeader('content-length', String(CHUNK.length * CHUNKS));
  for (let i = 0; i < CHUNKS; i++) {
    res.write(CHUNK);
    await sleep(150);
  }
  res.end();
}

/**
 * A response that never ends: 1000 bytes of text every 50 ms until the client goes away. The pace is the fixture's
 * declared behaviour (a body that keeps coming, so that successive progress notifications report more bytes, which
 * the throttled reporter sends at most every 500 ms); the tests wait on `opened` and `closed`, never on the pace.
 */
export function endless() {
  let opened!: () => void;
  let closed!: () => void;
  const state = {
    /** Resolves when the first chunk has been sent. */
    opened: new Promise<void>((resolve) => {
      opened = resolve;
    }),
    /** Resolves when the client closed the connection before the end (there is no end). */
    closed: new Promise<void>((resolve) => {
      closed = resolve;
    }),
    handler: async (req: IncomingMessage, res: ServerResponse) => {
      let gone = false;
      req.socket.once('close', () => {
        gone = true;
        closed();
      });
      res.setHeader('content-type', 'text/plain');
      while (!gone) {
        res.write('word '.repeat(200));
        opened();
        await sleep(50);
      }
    },
  };
  return state;
}

/** MCP requires each progress notification of a request to report more than the one before. */
export function expectIncreasing(seen: readonly { progress: number }[]): void {
  for (let i = 1; i < seen.length; i++) expect(seen[i]!.progress).toBeGreaterThan(seen[i - 1]!.progress);
}

/** N nested elements around one sentence (issue 10): Readability's cost grows with the cube of the depth. */
export function deepPage(n: number): string {
  return `<html><head><title>Deep</title></head><body>${'<div>'.repeat(n)}<p>Deep down there is a sentence.</p></body></html>`;
}

let builtWorker: Promise<URL> | undefined;

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The conversion worker, built from this source tree. Tests run TypeScript through vitest, which a
 * worker thread cannot load, so it is bundled the way `tsup.config.ts` builds `dist/convertWorker.js`
 * (dependencies external), into node_modules/.cache, where they resolve as they do from dist/ — except
 * workspace packages (`@mcpkit/protocol-core/size`), bundled from their source as the bin bundles them, so
 * that no test needs them built first. Once per test process, removed when it exits.
 */
export function sourceWorker(): Promise<URL> {
  builtWorker ??= (async () => {
    const { build } = await import('tsup');
    const cache = fileURLToPath(new URL('../node_modules/.cache/', import.meta.url));
    // Test processes are often killed rather than exiting: remove what dead ones left behind.
    for (const entry of existsSync(cache) ? readdirSync(cache) : []) {
      const pid = Number(/^convert-worker-(\d+)$/.exec(entry)?.[1]);
      if (pid && !isAlive(pid)) rmSync(join(cache, entry), { recursive: true, force: true });
    }
    const outDir = join(cache, `convert-worker-${process.pid}/`);
    process.once('exit', () => rmSync(outDir, { recursive: true, force: true }));
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { dependencies: Record<string, string> };
    await build({
      entry: { convertWorker: fileURLToPath(new URL('../src/content/convertWorker.ts', import.meta.url)) },
      outDir,
      format: ['esm'],
      platform: 'node',
      target: 'node20',
      external: Object.keys(pkg.dependencies),
      noExternal: [/^@mcpkit\//],
      esbuildOptions(o) {
        o.conditions = ['@mcpkit/source', ...(o.conditions ?? [])];
      },
      tsconfig: fileURLToPath(new URL('../tsconfig.json', import.meta.url)),
      config: false,
      dts: false,
      splitting: false,
      silent: true,
    });
    return pathToFileURL(`${outDir}convertWorker.js`);
  })();
  return builtWorker;
}

/**
 * An in-process client for a fetch server; private-network access must be opted into explicitly.
 * Conversions run in-process (there is no built worker next to the source) unless the options pass
 * `conversionWorker: await sourceWorker()`: a worker per test would load the DOM libraries again each time.
 */
export async function connect(options: FetchServerOptions = {}): Promise<InMemoryPair> {
  return connectInMemory(createFetchServer(options));
}

export function text(result: unknown): string {
  const content = (result as CallToolResult).content;
  return content.map((c) => (c.type === 'text' ? c.text : '')).join('');
}

export async function callFetch(pair: InMemoryPair, args: Record<string, unknown>) {
  return (await pair.client.callTool({ name: 'fetch', arguments: args })) as CallToolResult;
}

export interface TestProxy extends TestServer {
  /** Every CONNECT target asked for (`host:port`), refused ones included. */
  connects: string[];
  /** The request line of every plain (non-CONNECT) request, e.g. `GET http://host/path HTTP/1.1`. */
  requestLines: string[];
  /** The `Proxy-Authorization` header of each request and CONNECT, in order (undefined when absent). */
  proxyAuthorizations: (string | undefined)[];
}

/**
 * A forward proxy on 127.0.0.1 that behaves like Squid's default configuration: absolute-form requests
 * (`GET http://host/path HTTP/1.1`) are forwarded, and CONNECT is allowed to port 443 only (403
 * otherwise). Whatever host was asked for, it connects to `targetPort` on 127.0.0.1, so a request that
 * arrives at the target proves it went through the proxy.
 */
export async function startProxy(targetPort: number): Promise<TestProxy> {
  const connects: string[] = [];
  const requestLines: string[] = [];
  const proxyAuthorizations: (string | undefined)[] = [];
  const server = createServer((req, res) => {
    requestLines.push(`${req.method} ${req.url} HTTP/${req.httpVersion}`);
    proxyAuthorizations.push(req.headers['proxy-authorization']);
    let target: URL;
    try {
      target = new URL(req.url ?? '');
    } catch {
      res.statusCode = 400; // origin-form: this is a proxy, not an origin server
      res.end();
      return;
    }
    const { 'proxy-authorization': _auth, 'proxy-connection': _connection, ...headers } = req.headers;
    const upstream = httpRequest(
      { host: '127.0.0.1', port: targetPort, method: req.method, path: target.pathname + target.search, headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  server.on('connect', (req: IncomingMessage, socket, head) => {
    connects.push(req.url ?? '');
    proxyAuthorizations.push(req.headers['proxy-authorization']);
    if (!(req.url ?? '').endsWith(':443')) {
      socket.end('HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n');
      return;
    }
    const upstream = netConnect(targetPort, '127.0.0.1', () => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
    upstream.on('error', () => socket.destroy());
    socket.on('error', () => upstream.destroy());
  });
  const { port, close } = await listenOnLoopback(server);
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    requests: [],
    hits: () => 0,
    connects,
    requestLines,
    proxyAuthorizations,
    close,
    [Symbol.asyncDispose]: close,
  };
}

/** Builds a one-page PDF whose text is `lines` (Helvetica, standard 14 font; offsets computed). */
export function makePdf(lines: string[], title?: string): Buffer {
  const pdfString = (s: string) => s.replace(/[()\\]/g, (c) => `\\${c}`);
  const content = `BT /F1 12 Tf 72 720 Td 14 TL ${lines.map((l) => `(${pdfString(l)}) Tj T*`).join(' ')} ET`;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
    `<< /Title (${pdfString(title ?? '')}) >>`,
  ];
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R${title ? ' /Info 6 0 R' : ''} >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

export interface SilentProxy extends AsyncDisposable {
  origin: string;
  /** The first line of what each connection sent, in order of arrival. */
  requestLines(): string[];
  /** Resolves once `count` request lines have arrived: the proxy holds that many requests, unanswered. */
  received(count: number): Promise<void>;
}

/**
 * A proxy that accepts connections and never answers (a dead corporate proxy); `requestLines` lists the
 * first line of what each connection sent, so a test can tell that a request did reach it.
 */
export async function startSilentProxy(): Promise<SilentProxy> {
  const sockets = new Set<Socket>();
  const requestLines: string[] = [];
  const waiting: { count: number; resolve: () => void }[] = [];
  const notify = () => {
    for (const waiter of [...waiting]) {
      if (requestLines.length < waiter.count) continue;
      waiting.splice(waiting.indexOf(waiter), 1);
      waiter.resolve();
    }
  };
  const server = createTcpServer((socket) => {
    sockets.add(socket);
    let head = '';
    socket.on('data', (chunk: Buffer) => {
      if (head.includes('\r\n')) return;
      head += chunk.toString('latin1');
      if (!head.includes('\r\n')) return;
      requestLines.push(head.slice(0, head.indexOf('\r\n')));
      notify();
    });
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requestLines: () => [...requestLines],
    received: (count) =>
      new Promise<void>((resolve) => {
        waiting.push({ count, resolve });
        notify();
      }),
    async [Symbol.asyncDispose]() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
