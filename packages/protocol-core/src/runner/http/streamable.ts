/**
 * Streamable HTTP at `/mcp`, both eras on one endpoint:
 * - a request with `Mcp-Session-Id` belongs to a 2025 session of the table (`sessionTable.ts`);
 * - a POST without one that the SDK classifies as 2026-07-28 (`server/discover`, or the per-request
 *   `_meta` envelope) is served statelessly by the SDK's handler (`eras.ts`);
 * - a 2025 `initialize` opens a session on the SDK's `NodeStreamableHTTPServerTransport`, with its own
 *   event store when resumability is on;
 * - `--stateless`: every POST goes to the SDK's handler (a fresh server per request, either era);
 *   GET and DELETE get 405.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import { isInitializeRequest } from '@modelcontextprotocol/server';
import { ErrorCode } from '../../errors.js';
import type { Logger } from '../../logger.js';
import { createSessionEventStore, markResumable, type SessionEventStoreOptions } from '../../resumable.js';
import type { ServerApp } from '../types.js';
import { sendJsonRpcError } from './body.js';
import type { EraRouter } from './eras.js';
import { ownsSession, type RunnerSessions, requestOwner } from './mcpSessions.js';

/** How long a client waits before it resumes a stream the server ended (the `retry` of priming events), ms. */
const RESUME_RETRY_MS = 1000;

function containsInitialize(body: unknown): boolean {
  return Array.isArray(body) ? body.some((m) => isInitializeRequest(m)) : isInitializeRequest(body);
}

/** Whether a POST body only completes the handshake (`notifications/initialized`), which is no use of a session. */
function onlyHandshake(body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  return messages.every((m) => typeof m === 'object' && m !== null && (m as { method?: unknown }).method === 'notifications/initialized');
}

export interface StreamableOptions {
  app: ServerApp;
  sessions: RunnerSessions;
  eras: EraRouter;
  stateless: boolean;
  eventStore: SessionEventStoreOptions | false;
  logger: Logger;
}

/**
 * `body`: the parsed POST body, read (size-capped, checked) by the runner before it got here; `undefined` for
 * GET and DELETE.
 */
export function createStreamableHandler({ app, sessions, eras, stateless, eventStore, logger }: StreamableOptions) {
  /** A 2025 `initialize` without a session: a new session, if the table admits it. */
  const open = async (req: IncomingMessage, res: ServerResponse, body: unknown) => {
    if (!sessions.admit(res)) return;
    const server = app.createServer();
    let entry: unknown;
    const transport = new NodeStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      // One store per session: a Last-Event-ID can only replay this session's own events.
      ...(eventStore ? { eventStore: createSessionEventStore(eventStore), retryInterval: RESUME_RETRY_MS } : {}),
      onsessioninitialized: (id) => {
        sessions.table.unreserve();
        const owner = requestOwner(req);
        entry = sessions.table.add(id, { server, transport, ...(owner !== undefined ? { owner } : {}) });
        logger.debug(`session ${id} opened`);
      },
      onsessionclosed: (id) => void sessions.close(id),
    });
    if (eventStore) markResumable(transport);
    transport.onclose = () => {
      if (transport.sessionId) void sessions.close(transport.sessionId);
    };
    try {
      await server.connect(transport);
      await transport.handleRequest(req, res, body);
    } finally {
      if (!entry) {
        sessions.table.unreserve();
        void server.close();
      }
    }
  };

  return async (req: IncomingMessage, res: ServerResponse, _url: URL, body: unknown): Promise<void> => {
    const method = req.method ?? 'GET';
    if (stateless) {
      if (method !== 'POST') {
        sendJsonRpcError(res, 405, ErrorCode.ServerError, 'Method not allowed: this server is stateless; use POST', { Allow: 'POST' });
        return;
      }
      await eras.serve(req, res, body);
      return;
    }
    const sessionId = req.headers['mcp-session-id'];
    if (typeof sessionId === 'string') {
      const session = sessions.table.get(sessionId);
      const transport = session?.value.transport;
      // Another principal's session is answered as unknown: its existence is not theirs to learn.
      if (!session || !(transport instanceof NodeStreamableHTTPServerTransport) || !ownsSession(session.value, req)) {
        sendJsonRpcError(res, 404, ErrorCode.ServerError, 'Session not found: start a new session with initialize');
        return;
      }
      sessions.table.track(session, res, { stream: method === 'GET' });
      if (method !== 'POST' || !onlyHandshake(body)) session.used = true;
      await transport.handleRequest(req, res, body);
      return;
    }
    if (method !== 'POST') {
      sendJsonRpcError(res, 400, ErrorCode.ServerError, 'Bad Request: Mcp-Session-Id header is required');
      return;
    }
    if (await eras.isModern(req, res, body)) {
      await eras.serve(req, res, body);
      return;
    }
    if (!containsInitialize(body)) {
      sendJsonRpcError(res, 400, ErrorCode.ServerError, 'Bad Request: no valid session ID provided; send initialize first');
      return;
    }
    await open(req, res, body);
  };
}
