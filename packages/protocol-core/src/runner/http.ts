import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { NodeStreamableHTTPServerTransport as StreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import { isInitializeRequest, type McpServer } from '@modelcontextprotocol/server';
import { SSEServerTransport } from '@modelcontextprotocol/server-legacy/sse';
import { ErrorCode } from '../errors.js';
import { type Logger, silentLogger } from '../logger.js';
import { createSessionEventStore, markResumable, type SessionEventStoreOptions } from '../resumable.js';
import { createEraRouter } from './eras.js';
import { parseAllowedHost } from './hosts.js';
import { bodyProblem, type JsonRpcId } from './jsonRpcCheck.js';
import { checkRequest, type GuardOptions, hostPolicy } from './security.js';
import { createSessionTable } from './sessions.js';
import type { RunningServer, ServerApp } from './types.js';

export interface HttpOptions {
  /** `http`: Streamable HTTP at `/mcp`. `sse`: legacy HTTP+SSE at `/sse` and `/messages`. */
  mode: 'http' | 'sse';
  host: string;
  /** 0 picks a free port; the bound one is in `url`. */
  port: number;
  /** Streamable HTTP without sessions: a fresh server per request. */
  stateless?: boolean;
  authToken?: string;
  /**
   * Live sessions at most. When all are taken, a new session reclaims the slot of one whose client
   * left (dropped its GET stream without DELETE) or, failing that, of the one idle longest, if idle at
   * least `reclaimIdleMs`; a session with a request in flight or an open stream is never reclaimed.
   * Only when none can be reclaimed does a new session get 503.
   */
  maxSessions?: number;
  /** How long a session must be idle before a full table may reclaim it (ms); default 60 s, or `sessionIdleMs` if shorter. */
  reclaimIdleMs?: number;
  /** A session with no request for this long is closed (ms). */
  sessionIdleMs?: number;
  /**
   * A session that made no request after initialize (`notifications/initialized` does not count) and
   * holds no open stream is closed after this long (ms); default 60 s, or `sessionIdleMs` if shorter.
   */
  unusedSessionIdleMs?: number;
  /**
   * Time a client has to send a whole request, headers and body (ms); a slower one gets 408 and is
   * disconnected. Headers must arrive within 10 s, or this if shorter. Responses, such as SSE streams,
   * are not limited. Default 60 s.
   */
  requestTimeoutMs?: number;
  /** Request bodies above this get 413 (bytes). */
  maxBodyBytes?: number;
  /** Extra `Host` names (a reverse proxy's): `name` on any port, `name:port` on that port only. */
  allowedHosts?: readonly string[];
  /** Extra browser origins, e.g. `https://app.example.com`. */
  allowedOrigins?: readonly string[];
  /**
   * Resumable streams (SEP-1699), stateful Streamable HTTP only: each session gets its own bounded event
   * store, every SSE event an id, and a client whose stream ended early (a dropped connection, or a tool
   * that closed it on purpose) reconnects with `Last-Event-ID` and gets what it missed. Clients of
   * 2025-11-25 and later also get a priming event with `retry: 1000`. The bounds are per session; `false`
   * turns it off. Default 100 events and 1 MiB per session.
   */
  eventStore?: SessionEventStoreOptions | false;
  logger?: Logger;
}

/** Per-session event store bounds (`HttpOptions.eventStore`). */
const EVENT_STORE_DEFAULTS: SessionEventStoreOptions = { maxEvents: 100, maxBytes: 1024 * 1024 };
/** How long a client waits before it resumes a stream the server ended (the `retry` of priming events), ms. */
const RESUME_RETRY_MS = 1000;

export interface RunningHttpServer extends RunningServer {
  /** Base URL, e.g. `http://127.0.0.1:3000`. */
  url: string;
  /** The MCP endpoint: `<url>/mcp` or `<url>/sse`. */
  endpoint: string;
  /** Live sessions now (both transports). */
  sessionCount(): number;
  httpServer: Server;
}

/** What the runner keeps per session; the table (`sessions.ts`) keeps its use. */
interface SessionValue {
  server: McpServer;
  transport: StreamableHTTPServerTransport | SSEServerTransport;
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
    /** The id of the request refused, when it has a valid one. */
    readonly id: JsonRpcId = null,
  ) {
    super(message);
  }
}

function sendJsonRpcError(
  res: ServerResponse,
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
  id: JsonRpcId = null,
): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id }));
}

async function readJsonBody(req: IncomingMessage, limit: number): Promise<unknown> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit)
    throw new HttpError(413, ErrorCode.InvalidRequest, `Request body exceeds ${limit} bytes`);
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > limit) throw new HttpError(413, ErrorCode.InvalidRequest, `Request body exceeds ${limit} bytes`);
      chunks.push(chunk);
    }
  } catch (error) {
    if (error instanceof HttpError) throw error;
    // The client went away or was cut off (request timeout) mid-body; nobody is left to answer.
    throw new HttpError(400, ErrorCode.InvalidRequest, 'Bad Request: the request body was not received completely');
  }
  const text = Buffer.concat(chunks).toString('utf8');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new HttpError(400, ErrorCode.ParseError, 'Parse error: the request body is not valid JSON');
  }
  // Not JSON-RPC: -32600 with the request's id (the SDK would answer -32700 without it, or plain text for SSE).
  const problem = bodyProblem(body);
  if (problem) throw new HttpError(400, problem.code, problem.message, problem.id);
  return body;
}

function containsInitialize(body: unknown): boolean {
  return Array.isArray(body) ? body.some((m) => isInitializeRequest(m)) : isInitializeRequest(body);
}

/** Whether a POST body only completes the handshake (`notifications/initialized`), which is no use of a session. */
function onlyHandshake(body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  return messages.every((m) => typeof m === 'object' && m !== null && (m as { method?: unknown }).method === 'notifications/initialized');
}

/**
 * Serves `app` over Streamable HTTP (`/mcp`) or legacy HTTP+SSE (`/sse` + `/messages`), plus
 * `/healthz`. Every client session gets its own `McpServer` from `app.createServer()`, so nothing
 * (responses, notifications, per-session state) is shared between clients (GHSA-345p-7cg4-v4c7).
 */
export async function serveHttp(app: ServerApp, options: HttpOptions): Promise<RunningHttpServer> {
  const {
    mode,
    host,
    port,
    stateless = false,
    authToken,
    maxSessions = 100,
    sessionIdleMs = 30 * 60_000,
    maxBodyBytes = 4 * 1024 * 1024,
    requestTimeoutMs = 60_000,
    eventStore = EVENT_STORE_DEFAULTS,
    logger = silentLogger,
  } = options;
  const unusedSessionIdleMs = Math.min(options.unusedSessionIdleMs ?? 60_000, sessionIdleMs);
  const reclaimIdleMs = Math.min(options.reclaimIdleMs ?? 60_000, sessionIdleMs);
  const headersTimeoutMs = Math.min(10_000, requestTimeoutMs);
  // Host and Origin are checked against the port actually bound (`port` may be 0), so the guard is
  // built once listening; a malformed allowed host fails before that.
  for (const entry of options.allowedHosts ?? []) parseAllowedHost(entry);
  let guard: GuardOptions | undefined;
  let closing = false;
  const sessions = createSessionTable<SessionValue>({
    maxSessions,
    idleMs: sessionIdleMs,
    unusedIdleMs: unusedSessionIdleMs,
    reclaimIdleMs,
    logger,
    close: async ({ id, value }) => {
      logger.debug(`session ${id} closed`);
      await Promise.allSettled([value.transport.close(), value.server.close()]);
    },
  });
  const closeSession = (id: string) => sessions.close(id);
  // 2026-07-28 requests (and, with --stateless, every request) are the SDK's to serve per request.
  const eras = createEraRouter(app, { stateless, logger });

  /** Takes a session slot (reclaiming an idle session's if need be), or answers 503. */
  const admit = (res: ServerResponse): boolean => {
    if (sessions.reserve()) return true;
    sendJsonRpcError(res, 503, ErrorCode.ServerError, `Service unavailable: the server already has ${maxSessions} live sessions`, {
      'Retry-After': '5',
    });
    return false;
  };

  const handleStreamable = async (req: IncomingMessage, res: ServerResponse) => {
    const method = req.method ?? 'GET';
    if (stateless) {
      if (method !== 'POST') {
        sendJsonRpcError(res, 405, ErrorCode.ServerError, 'Method not allowed: this server is stateless; use POST', { Allow: 'POST' });
        return;
      }
      await eras.serve(req, res, await readJsonBody(req, maxBodyBytes));
      return;
    }
    const sessionId = req.headers['mcp-session-id'];
    if (typeof sessionId === 'string') {
      const session = sessions.get(sessionId);
      const transport = session?.value.transport;
      if (!session || !(transport instanceof StreamableHTTPServerTransport)) {
        sendJsonRpcError(res, 404, ErrorCode.ServerError, 'Session not found: start a new session with initialize');
        return;
      }
      sessions.track(session, res, { stream: method === 'GET' });
      const body = method === 'POST' ? await readJsonBody(req, maxBodyBytes) : undefined;
      if (method !== 'POST' || !onlyHandshake(body)) session.used = true;
      await transport.handleRequest(req, res, body);
      return;
    }
    if (method !== 'POST') {
      sendJsonRpcError(res, 400, ErrorCode.ServerError, 'Bad Request: Mcp-Session-Id header is required');
      return;
    }
    const body = await readJsonBody(req, maxBodyBytes);
    if (await eras.isModern(req, body)) {
      await eras.serve(req, res, body);
      return;
    }
    if (!containsInitialize(body)) {
      sendJsonRpcError(res, 400, ErrorCode.ServerError, 'Bad Request: no valid session ID provided; send initialize first');
      return;
    }
    if (!admit(res)) return;
    const server = app.createServer();
    let entry: unknown;
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      // One store per session: a Last-Event-ID can only replay this session's own events.
      ...(eventStore ? { eventStore: createSessionEventStore(eventStore), retryInterval: RESUME_RETRY_MS } : {}),
      onsessioninitialized: (id) => {
        sessions.unreserve();
        entry = sessions.add(id, { server, transport });
        logger.debug(`session ${id} opened`);
      },
      onsessionclosed: (id) => {
        void closeSession(id);
      },
    });
    if (eventStore) markResumable(transport);
    transport.onclose = () => {
      if (transport.sessionId) void closeSession(transport.sessionId);
    };
    try {
      await server.connect(transport);
      await transport.handleRequest(req, res, body);
    } finally {
      if (!entry) {
        sessions.unreserve();
        void server.close();
      }
    }
  };

  const handleSse = async (req: IncomingMessage, res: ServerResponse, url: URL) => {
    if (url.pathname === '/sse') {
      if (req.method !== 'GET') {
        sendJsonRpcError(res, 405, ErrorCode.ServerError, 'Method not allowed: use GET /sse', { Allow: 'GET' });
        return;
      }
      if (!admit(res)) return;
      const transport = new SSEServerTransport('/messages', res);
      const server = app.createServer();
      // The GET /sse stream is the session: it counts as in flight until it closes, which ends the session.
      sessions.add(transport.sessionId, { server, transport }, { inFlight: 1, used: true });
      sessions.unreserve();
      res.once('close', () => void closeSession(transport.sessionId));
      await server.connect(transport);
      return;
    }
    if (req.method !== 'POST') {
      sendJsonRpcError(res, 405, ErrorCode.ServerError, 'Method not allowed: use POST /messages', { Allow: 'POST' });
      return;
    }
    const id = url.searchParams.get('sessionId') ?? '';
    const session = sessions.get(id);
    const transport = session?.value.transport;
    if (!session || !(transport instanceof SSEServerTransport)) {
      sendJsonRpcError(res, 404, ErrorCode.ServerError, 'Session not found: open GET /sse first');
      return;
    }
    sessions.touch(session);
    const body = await readJsonBody(req, maxBodyBytes);
    await transport.handlePostMessage(req, res, body);
  };

  // requestTimeout and headersTimeout bound how long a client may take to *send* a request (a client
  // dripping its body or headers gets 408); Node stops timing a request once it is received, so long
  // responses (SSE streams) are not cut. The check interval keeps the cut-off close to the limit.
  const serverOptions = {
    requestTimeout: requestTimeoutMs,
    headersTimeout: headersTimeoutMs,
    connectionsCheckingInterval: Math.max(25, Math.min(1000, Math.floor(headersTimeoutMs / 4))),
  };
  const httpServer = createServer(serverOptions, async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    try {
      if (url.pathname === '/healthz') {
        res.writeHead(closing ? 503 : 200, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ status: closing ? 'closing' : 'ok' }));
        return;
      }
      const isMcp = mode === 'http' ? url.pathname === '/mcp' : url.pathname === '/sse' || url.pathname === '/messages';
      if (!isMcp) {
        const hint = mode === 'http' ? 'the MCP endpoint is /mcp' : 'the MCP endpoints are /sse and /messages';
        sendJsonRpcError(res, 404, ErrorCode.ServerError, `Not found: ${hint}`);
        return;
      }
      const refusal = guard ? checkRequest(req, guard) : { status: 503, message: 'Service unavailable: the server is starting' };
      if (refusal) {
        logger.warn(`refused ${req.method} ${url.pathname}: ${refusal.message}`);
        sendJsonRpcError(res, refusal.status, ErrorCode.ServerError, refusal.message, refusal.headers);
        return;
      }
      if (closing) {
        sendJsonRpcError(res, 503, ErrorCode.ServerError, 'Service unavailable: the server is shutting down');
        return;
      }
      if (mode === 'http') await handleStreamable(req, res);
      else await handleSse(req, res, url);
    } catch (error) {
      if (error instanceof HttpError) {
        sendJsonRpcError(res, error.status, error.code, error.message, {}, error.id);
        return;
      }
      logger.error(`request ${req.method} ${url.pathname} failed:`, error);
      sendJsonRpcError(res, 500, ErrorCode.InternalError, 'Internal server error');
    }
  });
  const sweep = setInterval(() => sessions.expire(), Math.max(25, Math.min(unusedSessionIdleMs / 4, 15_000)));
  sweep.unref();

  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(port, host, () => {
      httpServer.off('error', reject);
      guard = {
        hosts: hostPolicy(host, (httpServer.address() as AddressInfo).port, options.allowedHosts),
        origins: options.allowedOrigins ?? [],
        ...(authToken !== undefined ? { authToken } : {}),
      };
      resolve();
    });
  });
  const address = httpServer.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const base = `http://${shownHost}:${address.port}`;

  return {
    url: base,
    endpoint: `${base}${mode === 'http' ? '/mcp' : '/sse'}`,
    httpServer,
    sessionCount: () => sessions.size,
    async close() {
      if (closing) return;
      closing = true;
      clearInterval(sweep);
      await Promise.allSettled([...sessions.ids().map(closeSession), eras.close()]);
      await new Promise<void>((resolve) => {
        httpServer.close(() => resolve());
        httpServer.closeAllConnections();
      });
      await app.close?.();
    },
  };
}
