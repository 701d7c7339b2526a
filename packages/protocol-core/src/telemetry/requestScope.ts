/**
 * What the process is serving right now, for the log lines written while it does: the HTTP request (`http`, an id
 * per HTTP request) and, inside it or on stdio, the JSON-RPC request (`id`, `method`, the session, and the trace when
 * telemetry is on). The logger reads it (`logger.ts`), so every line a handler, a store or the runner writes for a
 * request carries its ids without being handed them.
 *
 * One `AsyncLocalStorage` for the process: it holds no value of its own, only each async context's, so nothing is
 * shared between requests or between servers of one process.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { IncomingMessage, ServerResponse } from 'node:http';

export interface RequestScope {
  /** The HTTP request's id: the client's (or proxy's) `X-Request-Id` when it is plain, else a fresh one. */
  readonly http?: string;
  /** The JSON-RPC request's id, as the client sent it. */
  readonly id?: string | number;
  readonly method?: string;
  /** The MCP session (`Mcp-Session-Id`, or the legacy SSE session). */
  readonly session?: string;
  /** The request's span when telemetry is on (hex ids), so a log line can be found from its trace. */
  readonly traceId?: string;
  readonly spanId?: string;
}

const scopes = new AsyncLocalStorage<RequestScope>();

/** The scope of the request being served here, if any. */
export function currentRequest(): RequestScope | undefined {
  return scopes.getStore();
}

/** Runs `fn` (and everything it starts) in `scope`, which is added to the enclosing one. */
export function inRequest<T>(scope: RequestScope, fn: () => T): T {
  const outer = scopes.getStore();
  return scopes.run(outer ? { ...outer, ...scope } : scope, fn);
}

/** Longest `X-Request-Id` taken from a client; longer or unusual ones are replaced (they end up in log lines). */
const MAX_HTTP_ID = 128;
const PLAIN_ID = /^[A-Za-z0-9._:@/+=-]+$/;

/** The id of an HTTP request: its `X-Request-Id` when short and plain (a proxy's), else `fresh()`. */
export function httpRequestId(header: string | string[] | undefined, fresh: () => string): string {
  const given = Array.isArray(header) ? header[0] : header;
  return given !== undefined && given.length <= MAX_HTTP_ID && PLAIN_ID.test(given) ? given : fresh();
}

/**
 * `listener` (the HTTP runner's), run for each request in a scope with the request's id (`httpRequestId`), which
 * the response repeats in `X-Request-Id` so a client or proxy can find the request's log lines; only when `logger`
 * writes `json` lines (the scope's cost is the promise hooks of `AsyncLocalStorage`, see `observe.ts`), else
 * `listener` itself.
 */
export function withHttpRequestId(
  listener: (req: IncomingMessage, res: ServerResponse) => unknown,
  logger: { readonly format?: string },
): (req: IncomingMessage, res: ServerResponse) => unknown {
  if (logger.format !== 'json') return listener;
  return (req, res) => {
    // Web Crypto's global, not `node:crypto`: importing that here would load it at every bin's start (the logger
    // imports this file), which the stdio cold-start tests refuse.
    const http = httpRequestId(req.headers['x-request-id'], () => globalThis.crypto.randomUUID());
    res.setHeader('X-Request-Id', http);
    return inRequest({ http }, () => listener(req, res));
  };
}
