import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect as netConnect } from 'node:net';
import { connectInMemory, type InMemoryPair } from '@mcpkit/protocol-core/testing';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
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

/** An in-process client for a fetch server; private-network access must be opted into explicitly. */
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

/**
 * A minimal CONNECT proxy on 127.0.0.1: it tunnels every request to `target` (whatever host was
 * asked for), so a request that arrives at `target` proves it went through the proxy.
 */
export async function startProxy(targetPort: number): Promise<TestServer & { connects: string[] }> {
  const connects: string[] = [];
  const server = createServer((_req, res) => {
    res.statusCode = 405;
    res.end();
  });
  server.on('connect', (req: IncomingMessage, socket, head) => {
    connects.push(req.url ?? '');
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
