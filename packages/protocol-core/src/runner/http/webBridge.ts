/**
 * Node ↔ web for the SDK's `createMcpHandler`, on its public `fetch(request, { parsedBody, authInfo })` face,
 * leaner than `toNodeHandler` for what the runner has in hand:
 * - the body is already read and parsed (size-capped by the runner): the `Request` carries the headers only and
 *   the SDK gets `parsedBody` (no `JSON.stringify` of it, no body stream, no second `JSON.parse`);
 * - one `Request` per HTTP request, built for the era classification (`isLegacyRequest`) and reused to serve it;
 * - a JSON answer is written with one `res.end(text)` instead of iterating its body stream chunk by chunk.
 *   An SSE answer streams as `toNodeHandler` streams it (write backpressure, stop on disconnect).
 * The request's signal aborts when the client goes away before the answer is written, as with `toNodeHandler`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AuthInfo, McpHandlerRequestOptions } from '@modelcontextprotocol/server';

/** Headers that describe a body; the runner consumed it, so the `Request` has none. */
const BODY_HEADERS = new Set(['content-length', 'content-encoding', 'transfer-encoding']);

interface Bridged {
  request: Request;
  abort: AbortController;
  finished: boolean;
}

const bridged = new WeakMap<IncomingMessage, Bridged>();

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** The body-less web `Request` of `req` (one per request: memoised), aborted when `res` closes early. */
export function webRequest(req: IncomingMessage, res: ServerResponse): Request {
  const known = bridged.get(req);
  if (known) return known.request;
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || name.startsWith(':') || BODY_HEADERS.has(name)) continue;
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else headers.set(name, value);
  }
  const abort = new AbortController();
  const host = single(req.headers.host) ?? 'localhost';
  // A Host header that is no authority (the runner's host check answers for it) must not fail the URL.
  let url: string;
  try {
    url = new URL(req.url ?? '/', `http://${host}`).href;
  } catch {
    url = `http://localhost${req.url?.startsWith('/') ? req.url : '/'}`;
  }
  const request = new Request(url, { method: req.method ?? 'POST', headers, signal: abort.signal });
  const entry: Bridged = { request, abort, finished: false };
  bridged.set(req, entry);
  res.once('close', () => {
    if (!entry.finished) abort.abort();
  });
  if (res.destroyed) abort.abort();
  return request;
}

type Fetch = (request: Request, options?: McpHandlerRequestOptions) => Promise<Response>;

/** Serves `req` (body already parsed) through `fetch`, writing the `Response` to `res`. */
export async function serveWeb(fetch: Fetch, req: IncomingMessage, res: ServerResponse, body: unknown, onerror: (error: Error) => void) {
  const request = webRequest(req, res);
  const entry = bridged.get(req) as Bridged;
  const auth = (req as IncomingMessage & { auth?: AuthInfo }).auth;
  let response: Response;
  try {
    response = await fetch(request, { parsedBody: body, ...(auth !== undefined ? { authInfo: auth } : {}) });
  } catch (error) {
    onerror(error instanceof Error ? error : new Error(String(error)));
    entry.finished = true;
    res.writeHead(500, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ jsonrpc: '2.0', id: echoableId(body), error: { code: -32603, message: 'Internal server error' } }));
    return;
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of response.headers) headers[name] = value;
  if (response.body === null || !response.headers.get('content-type')?.startsWith('text/event-stream')) {
    // One JSON document (or nothing): read whole, written in one go.
    const text = response.body === null ? '' : await response.text();
    entry.finished = true;
    res.writeHead(response.status, headers);
    res.end(text);
    return;
  }
  res.writeHead(response.status, headers);
  await stream(response.body, res, entry);
}

/** An SSE body to `res`, honouring backpressure; stops when the client went away. */
async function stream(body: ReadableStream<Uint8Array>, res: ServerResponse, entry: Bridged): Promise<void> {
  const { signal } = entry.abort;
  let release: (() => void) | undefined;
  const onDrain = () => {
    release?.();
    release = undefined;
  };
  res.on('drain', onDrain);
  const closed = new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
  try {
    const reader = body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done || signal.aborted) break;
      if (!res.write(value)) await Promise.race([new Promise<void>((resolve) => (release = resolve)), closed]);
    }
    if (signal.aborted) await reader.cancel().catch(() => {});
  } catch {
    // The stream ended with an error (the SDK's own failure, already reported through `onerror`): end the response.
  } finally {
    res.off('drain', onDrain);
  }
  entry.finished = true;
  res.end();
}

function echoableId(body: unknown): string | number | null {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return null;
  const { method, id } = body as { method?: unknown; id?: unknown };
  return typeof method === 'string' && (typeof id === 'string' || typeof id === 'number') ? id : null;
}
