/**
 * The WebSocket runner (`--transport ws`): MCP over one WebSocket per client at `/mcp`, subprotocol `mcp`, one
 * JSON-RPC message per text frame, which is what the v1 SDK's `WebSocketClientTransport` speaks. It is not one
 * of the MCP specification's transports (stdio and Streamable HTTP are); it is served for the clients and
 * gateways that use it.
 *
 * A connection is a persistent bidirectional stream, like stdio, and is served as stdio is: the SDK's
 * `serveStdio` entry over the connection's transport (`wsTransport.ts`) picks the era from the opening message
 * and builds one server from `app.createServer` for it, so every connection has its own server and nothing is
 * shared between clients. In front of the upgrade, the HTTP runner's checks (`security.ts`): Host and Origin
 * (DNS rebinding), the `--auth-token` bearer token from the `Authorization` header (never from the URL, where
 * tokens leak into logs), the subprotocol, and `--max-sessions` live connections; a refused upgrade gets an
 * HTTP answer and no WebSocket. A frame over `--max-body` closes the connection with 1009; a peer that does not
 * answer a ping within `pingIntervalMs` is cut off.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { serveStdio as sdkServeStdio } from '@modelcontextprotocol/server/stdio';
import { type WebSocket, WebSocketServer } from 'ws';
import { ErrorCode, errorMessage } from '../errors.js';
import { type Logger, silentLogger } from '../logger.js';
import { forEra } from '../skills/support.js';
import { parseAllowedHost } from './hosts.js';
import { requestPath } from './requestPath.js';
import { checkRequest, type GuardOptions, listenGuarded, type Refusal } from './security.js';
import type { RunningServer, ServerApp } from './types.js';
import { WebSocketServerTransport } from './wsTransport.js';

/** The WebSocket subprotocol of MCP over WebSocket (the v1 SDK's client asks for it). */
export const WS_SUBPROTOCOL = 'mcp';

export interface WsOptions {
  host: string;
  /** 0 picks a free port; the bound one is in `url`. */
  port: number;
  /** Require `Authorization: Bearer <token>` on the upgrade request. */
  authToken?: string;
  /** Live connections at most; one more gets 503 before the upgrade. Default 100. */
  maxSessions?: number;
  /** Largest inbound frame (bytes); a larger one closes the connection with 1009. Default 4 MiB. */
  maxMessageBytes?: number;
  /** `subscriptions/listen` streams (2026-07-28) one connection may hold open. Default 16. */
  maxListensPerConnection?: number;
  /** How often each connection is pinged (ms); one whose pong has not come by the next ping is terminated. Default 30 s. */
  pingIntervalMs?: number;
  /** Extra `Host` names (a reverse proxy's): `name` on any port, `name:port` on that port only. */
  allowedHosts?: readonly string[];
  /** Extra browser origins, e.g. `https://app.example.com`. */
  allowedOrigins?: readonly string[];
  logger?: Logger;
}

export interface RunningWsServer extends RunningServer {
  /** Base URL, e.g. `ws://127.0.0.1:3000`. */
  url: string;
  /** The MCP endpoint: `<url>/mcp`. */
  endpoint: string;
  /** Live connections now. */
  sessionCount(): number;
  httpServer: Server;
}

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  426: 'Upgrade Required',
  503: 'Service Unavailable',
};

/** Answers an upgrade request with a plain HTTP JSON-RPC error and ends the socket: no WebSocket is opened. */
function refuseUpgrade(socket: Duplex, { status, message, headers = {} }: Refusal): void {
  const body = JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: ErrorCode.ServerError, message } });
  const lines = [
    `HTTP/1.1 ${status} ${STATUS_TEXT[status] ?? 'Error'}`,
    'Connection: close',
    'Content-Type: application/json',
    `Content-Length: ${Buffer.byteLength(body)}`,
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
  ];
  socket.end(`${lines.join('\r\n')}\r\n\r\n${body}`);
}

/** The subprotocols a client offers (`Sec-WebSocket-Protocol`, comma-separated). */
function offeredProtocols(req: IncomingMessage): string[] {
  return (req.headers['sec-websocket-protocol'] ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
}

export async function serveWs(app: ServerApp, options: WsOptions): Promise<RunningWsServer> {
  const {
    host,
    port,
    authToken,
    maxSessions = 100,
    maxMessageBytes = 4 * 1024 * 1024,
    maxListensPerConnection = 16,
    pingIntervalMs = 30_000,
    logger = silentLogger,
  } = options;
  for (const entry of options.allowedHosts ?? []) parseAllowedHost(entry);
  let guard: GuardOptions | undefined;
  let closing = false;
  /** Each live connection, with whether it answered the last ping. */
  const connections = new Map<WebSocket, { alive: boolean; close: () => Promise<void> }>();
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: maxMessageBytes,
    clientTracking: false,
    perMessageDeflate: false,
    handleProtocols: (protocols) => (protocols.has(WS_SUBPROTOCOL) ? WS_SUBPROTOCOL : false),
  });

  // An upgrade request has no body: its headers must come within 10 s (a slowloris holds no socket longer).
  const httpServer = createServer({ headersTimeout: 10_000, requestTimeout: 10_000 }, (req, res) => {
    const path = requestPath(req);
    if (path === '/healthz') {
      res.writeHead(closing ? 503 : 200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ status: closing ? 'closing' : 'ok' }));
      return;
    }
    const [status, message] =
      path === '/mcp'
        ? [426, `Upgrade Required: /mcp is a WebSocket endpoint (subprotocol ${WS_SUBPROTOCOL})`]
        : [404, 'Not found: the MCP endpoint is /mcp (WebSocket)'];
    res.writeHead(status, { 'Content-Type': 'application/json', ...(status === 426 ? { Upgrade: 'websocket' } : {}) });
    res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: ErrorCode.ServerError, message } }));
  });

  const refusalOf = (req: IncomingMessage): Refusal | undefined => {
    if (requestPath(req) !== '/mcp') return { status: 404, message: 'Not found: the MCP endpoint is /mcp' };
    if (!guard) return { status: 503, message: 'Service unavailable: the server is starting' };
    const refusal = checkRequest(req, guard);
    if (refusal) return refusal;
    if (closing) return { status: 503, message: 'Service unavailable: the server is shutting down' };
    if (!offeredProtocols(req).includes(WS_SUBPROTOCOL))
      return { status: 400, message: `Bad Request: the WebSocket subprotocol must be "${WS_SUBPROTOCOL}" (Sec-WebSocket-Protocol)` };
    if (connections.size >= maxSessions)
      return {
        status: 503,
        message: `Service unavailable: the server already has ${maxSessions} live connections`,
        headers: { 'Retry-After': '5' },
      };
    return undefined;
  };

  const serveConnection = (socket: WebSocket) => {
    const transport = new WebSocketServerTransport(socket);
    const handle = sdkServeStdio(
      forEra((context) => app.createServer(context)),
      {
        transport,
        maxSubscriptions: maxListensPerConnection,
        onerror: (error) => logger.debug(`WebSocket connection: ${errorMessage(error)}`),
      },
    );
    const entry = { alive: true, close: () => handle.close() };
    connections.set(socket, entry);
    socket.on('pong', () => {
      entry.alive = true;
    });
    socket.once('close', (code) => {
      connections.delete(socket);
      logger.debug(`WebSocket connection closed (${code})`);
      // The SDK closes the connection's server when the transport closes.
    });
  };

  httpServer.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', (error) => logger.debug(`WebSocket upgrade socket: ${errorMessage(error)}`));
    const refusal = refusalOf(req);
    if (refusal) {
      // The path only: a query string may carry what should never reach a log.
      logger.warn(`refused a WebSocket upgrade of ${requestPath(req) ?? 'a malformed target'}: ${refusal.message}`);
      refuseUpgrade(socket, refusal);
      return;
    }
    // Without `verifyClient`, `ws` completes (or refuses) the handshake synchronously: no slot is taken meanwhile.
    wss.handleUpgrade(req, socket, head, serveConnection);
  });

  const keepalive = setInterval(() => {
    for (const [socket, entry] of connections) {
      if (!entry.alive) {
        logger.info('a WebSocket client did not answer a ping in time; its connection is closed');
        socket.terminate();
        continue;
      }
      entry.alive = false;
      socket.ping();
    }
  }, pingIntervalMs);
  keepalive.unref();

  const bound = await listenGuarded(httpServer, port, host, options, authToken);
  guard = bound.guard;
  const base = `ws://${bound.hostPort}`;

  return {
    url: base,
    endpoint: `${base}/mcp`,
    httpServer,
    sessionCount: () => connections.size,
    async close() {
      if (closing) return;
      closing = true;
      clearInterval(keepalive);
      const open = [...connections];
      // Each connection's server is closed and its client sent the close frame (1000); the sockets are then cut, not
      // left to finish the closing handshake.
      await Promise.allSettled(open.map(([, entry]) => entry.close()));
      for (const [socket] of open) socket.terminate();
      await new Promise<void>((resolve) => {
        httpServer.close(() => resolve());
        httpServer.closeAllConnections();
      });
      wss.close();
      await app.close?.();
    },
  };
}
