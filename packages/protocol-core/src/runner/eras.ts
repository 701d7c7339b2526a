/**
 * The per-request half of the Streamable HTTP endpoint, on the SDK's `createMcpHandler`.
 *
 * A 2026-07-28 request (it carries the per-request `_meta` envelope; `server/discover` is one) is served
 * by the SDK from a fresh server out of `app.createServer`, with no session. A 2025 request is not ours to
 * serve here unless the runner is `--stateless`: then the SDK serves it per request too (its
 * `legacy: 'stateless'` posture, JSON responses), which is what our own stateless branch used to do.
 * Sessionful 2025 traffic stays with the runner's session table (`http.ts`).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, isLegacyRequest } from '@modelcontextprotocol/server';
import type { Logger } from '../logger.js';
import type { ServerApp } from './types.js';

export interface EraRouter {
  /** Whether this parsed POST body is 2026-era traffic (the SDK's own classification). */
  isModern(req: IncomingMessage, body: unknown): Promise<boolean>;
  /** Serves a POST whose body was already read (and size-checked) by the runner. */
  serve(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void>;
  close(): Promise<void>;
}

/** Headers that describe a body; the classification `Request` has none. */
const BODY_HEADERS = new Set(['content-length', 'content-encoding', 'transfer-encoding']);

/** A body-less web `Request` with `req`'s method and headers, for `isLegacyRequest` with a parsed body. */
function headersOnly(req: IncomingMessage): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || name.startsWith(':') || BODY_HEADERS.has(name)) continue;
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else headers.set(name, value);
  }
  // The classification reads the method, headers and body only; a fixed URL cannot fail to parse.
  return new Request('http://localhost/', { method: req.method ?? 'POST', headers });
}

export function createEraRouter(app: ServerApp, { stateless, logger }: { stateless: boolean; logger: Logger }): EraRouter {
  const onerror = (error: Error) => logger.error('MCP handler error:', error);
  const handler = createMcpHandler((context) => app.createServer(context), {
    legacy: stateless ? 'stateless' : 'reject',
    ...(app.bus ? { bus: app.bus } : {}),
    ...(stateless ? { responseMode: 'json' as const } : {}),
    onerror,
  });
  const node = toNodeHandler(handler, { onerror });
  return {
    async isModern(req, body) {
      // The body is already parsed: the SDK classifies from it (its documented fast path), so the `Request`
      // carries the headers only (no JSON re-serialised, cloned and parsed again on every request).
      return !(await isLegacyRequest(headersOnly(req), body));
    },
    serve: (req, res, body) => node(req, res, body),
    close: () => handler.close(),
  };
}
