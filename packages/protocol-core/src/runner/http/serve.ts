/**
 * The HTTP runner: routes (`/healthz`, the MCP endpoint), the checks in front of every MCP request
 * (Host/Origin, bearer token, shutting down), timeouts, listening and closing. What each endpoint does is
 * elsewhere: `streamable.ts` (Streamable HTTP, both eras), `sse.ts` (legacy HTTP+SSE), `body.ts`
 * (body cap and JSON-RPC checks), `mcpSessions.ts` (2025 sessions), `eras.ts` (the SDK's 2026 handler).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { ErrorCode } from '../../errors.js';
import { silentLogger } from '../../logger.js';
import type { SessionEventStoreOptions } from '../../resumable.js';
import { withHttpRequestId } from '../../telemetry/requestScope.js';
import { carriesRequest, createDrain, DEFAULT_SHUTDOWN_GRACE_MS, DRAIN_RETRY_AFTER_S, refuseWhileDraining } from '../drain.js';
import { parseAllowedHost } from '../hosts.js';
import { checkRequest, type GuardOptions, listenGuarded } from '../security.js';
import type { ServerApp } from '../types.js';
import { logAccess } from './accessLog.js';
import { createAuthGate } from './authGate.js';
import { checkParams, HttpError, readJsonRpcBody, sendJsonRpcError, unreadBody } from './body.js';
import { createEraRouter } from './eras.js';
import { isListenRequest } from './listenSlots.js';
import { createRunnerSessions } from './mcpSessions.js';
import type { HttpOptions, RunningHttpServer } from './options.js';
import { createReadiness } from './readiness.js';
import { createSseHandler } from './sse.js';
import { createStreamableHandler } from './streamable.js';

export type { HttpOptions, RunningHttpServer };

/** Per-session event store bounds (`HttpOptions.eventStore`). */
const EVENT_STORE_DEFAULTS: SessionEventStoreOptions = { maxEvents: 100, maxBytes: 1024 * 1024 };

/**
 * Serves `app` over Streamable HTTP (`/mcp`) or legacy HTTP+SSE (`/sse` + `/messages`), plus
 * `/healthz`. Every 2025 client session gets its own server from `app.createServer()`, and every
 * 2026-07-28 request too, so nothing (responses, notifications, per-session state) is shared between
 * clients (GHSA-345p-7cg4-v4c7).
 */
export async function serveHttp(app: ServerApp, options: HttpOptions): Promise<RunningHttpServer> {
  const {
    mode,
    host,
    port,
    stateless = false,
    authToken,
    maxSessions = 100,
    maxListens = 1024,
    maxListensPerPrincipal = 16,
    sessionIdleMs = 30 * 60_000,
    maxBodyBytes = 4 * 1024 * 1024,
    requestTimeoutMs = 60_000,
    eventStore = EVENT_STORE_DEFAULTS,
    shutdownGraceMs = DEFAULT_SHUTDOWN_GRACE_MS,
    logger = silentLogger,
  } = options;
  const unusedIdleMs = Math.min(options.unusedSessionIdleMs ?? 60_000, sessionIdleMs);
  const reclaimIdleMs = Math.min(options.reclaimIdleMs ?? 60_000, sessionIdleMs);
  const headersTimeoutMs = Math.min(10_000, requestTimeoutMs);
  // Host and Origin are checked against the port actually bound (`port` may be 0), so the guard is
  // built once listening; a malformed allowed host fails before that.
  for (const entry of options.allowedHosts ?? []) parseAllowedHost(entry);
  let guard: GuardOptions | undefined;
  let closing = false;
  let closed: Promise<void> | undefined;
  const drain = createDrain();
  const readiness = createReadiness({ app, drain, ...(options.auth ? { auth: options.auth } : {}) });
  const sessions = createRunnerSessions({
    maxSessions,
    idleMs: sessionIdleMs,
    unusedIdleMs,
    reclaimIdleMs,
    logger,
    ...(options.now ? { now: options.now } : {}),
  });
  // 2026-07-28 requests (and, with --stateless, every request) are the SDK's to serve per request.
  const eras = createEraRouter(app, { stateless, listens: { maxListens, maxPerPrincipal: maxListensPerPrincipal }, logger });
  const handle =
    mode === 'http'
      ? createStreamableHandler({ app, sessions, eras, stateless, eventStore, logger })
      : createSseHandler({ app, sessions, drain });
  const auth = options.auth ? createAuthGate(options.auth, logger) : undefined;

  // requestTimeout and headersTimeout bound how long a client may take to *send* a request (a client
  // dripping its body or headers gets 408); Node stops timing a request once it is received, so long
  // responses (SSE streams) are not cut. The check interval keeps the cut-off close to the limit.
  const serverOptions = {
    requestTimeout: requestTimeoutMs,
    headersTimeout: headersTimeoutMs,
    connectionsCheckingInterval: Math.max(25, Math.min(1000, Math.floor(headersTimeoutMs / 4))),
  };
  const serve = async (req: IncomingMessage, res: ServerResponse) => {
    // A request target Node's parser passes may still not be a URL (`GET http://[ HTTP/1.1`): `new URL` would
    // throw outside any catch here and take the process, and every user's session, down.
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://localhost');
    } catch {
      sendJsonRpcError(res, 400, ErrorCode.InvalidRequest, 'Bad Request: the request target is not a URL', { Connection: 'close' });
      return;
    }
    const access = logAccess(logger, req, res, url.pathname);
    try {
      // While draining, every answer closes its connection: a kept-alive client reconnects, to another replica.
      if (drain.draining) res.setHeader('Connection', 'close');
      if (url.pathname === '/healthz') {
        // Liveness: the process is up and answering; never a backend call, and not failed by a drain.
        res.writeHead(closing ? 503 : 200, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ status: closing ? 'closing' : drain.draining ? 'draining' : 'ok' }));
        return;
      }
      if (url.pathname === '/readyz') {
        const ready = closing ? { status: 'draining' as const } : await readiness.check();
        res.writeHead(ready.status === 'ok' ? 200 : 503, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' });
        res.end(JSON.stringify(ready));
        return;
      }
      if (auth?.serveMetadata(req, res, url)) return;
      const isMcp = mode === 'http' ? url.pathname === '/mcp' : url.pathname === '/sse' || url.pathname === '/messages';
      if (!isMcp) {
        const hint = mode === 'http' ? 'the MCP endpoint is /mcp' : 'the MCP endpoints are /sse and /messages';
        sendJsonRpcError(res, 404, ErrorCode.ServerError, `Not found: ${hint}`);
        return;
      }
      const refusal = guard ? checkRequest(req, guard) : { status: 503, message: 'Service unavailable: the server is starting' };
      if (refusal) {
        logger.warn(`refused ${req.method} ${url.pathname}: ${refusal.message}`);
        // The body is not read: the connection ends with the answer.
        const close: Record<string, string> = unreadBody(req) ? { Connection: 'close' } : {};
        sendJsonRpcError(res, refusal.status, ErrorCode.ServerError, refusal.message, { ...refusal.headers, ...close });
        return;
      }
      if (closing || (drain.draining && refuseWhileDraining(req.method))) {
        sendDraining(res);
        return;
      }
      // The token is checked from the headers before a byte of the body is read (an unauthenticated request
      // costs no read, no parse); the body (size-capped, JSON-RPC checked) then tells the scopes it needs, and
      // its params are checked only for a request that may go ahead.
      const authInfo = auth ? await auth.authenticate(req, res) : undefined;
      if (auth && !authInfo) return;
      const body = req.method === 'POST' ? await readJsonRpcBody(req, maxBodyBytes) : undefined;
      access.body = body;
      if (auth && authInfo && !auth.authorize(req, res, authInfo, body)) return;
      if (body !== undefined) checkParams(body);
      // A request started now is a call in flight until its response closes (legacy SSE answers on its stream: its
      // handler counts those). While draining, a new request is refused; an answer or a notification the client sends
      // (to a server request of a call in flight, a cancellation) still goes through.
      const request = req.method === 'POST' && carriesRequest(body);
      if (request && drain.draining) {
        sendDraining(res);
        return;
      }
      if (request && mode === 'http' && !isListenRequest(body)) res.once('close', drain.enter());
      await handle(req, res, url, body);
    } catch (error) {
      if (error instanceof HttpError) {
        // A body refused unread (413 from its Content-Length) is not read afterwards either.
        const close: Record<string, string> = unreadBody(req) ? { Connection: 'close' } : {};
        sendJsonRpcError(res, error.status, error.code, error.message, close, error.id);
        return;
      }
      logger.error(`request ${req.method} ${url.pathname} failed:`, error);
      sendJsonRpcError(res, 500, ErrorCode.InternalError, 'Internal server error');
    }
  };
  // Each request in a scope with its id: the log lines written for it carry it (`X-Request-Id`).
  const httpServer = createServer(serverOptions, withHttpRequestId(serve, logger));
  const sweep = setInterval(() => sessions.table.expire(), Math.max(25, Math.min(unusedIdleMs / 4, 15_000)));
  sweep.unref();

  const bound = await listenGuarded(httpServer, port, host, options, authToken);
  guard = bound.guard;
  const base = `http://${bound.hostPort}`;

  return {
    url: base,
    endpoint: `${base}${mode === 'http' ? '/mcp' : '/sse'}`,
    httpServer,
    sessionCount: () => sessions.table.size,
    listenCount: () => eras.listens.size,
    close() {
      closed ??= shutdown();
      return closed;
    },
  };

  /**
   * The drain, then the close: nothing new is taken (readiness fails at once), calls in flight get up to the
   * grace to finish, then every stream is ended, the listener closed and the app released.
   */
  async function shutdown(): Promise<void> {
    const calls = drain.inFlight;
    if (calls > 0) logger.info(`draining: waiting up to ${Math.round(shutdownGraceMs / 100) / 10}s for ${calls} call(s) in flight`);
    if (!(await drain.settle(shutdownGraceMs)))
      logger.warn(`the shutdown grace (${shutdownGraceMs}ms) ran out with ${drain.inFlight} call(s) in flight; they are cut`);
    closing = true;
    clearInterval(sweep);
    // Ends each session's streams (its transport ends their responses) and every listen stream.
    await Promise.allSettled([...sessions.table.ids().map(sessions.close), eras.close()]);
    await new Promise<void>((resolve) => {
      httpServer.close(() => resolve());
      httpServer.closeAllConnections();
    });
    await app.close?.();
    await options.auth?.close();
  }
}

/** The answer to what a draining server no longer takes: another replica, or this one later, should. */
function sendDraining(res: ServerResponse): void {
  sendJsonRpcError(res, 503, ErrorCode.ServerError, 'Service unavailable: the server is shutting down; retry on another connection', {
    'Retry-After': String(DRAIN_RETRY_AFTER_S),
    Connection: 'close',
  });
}
