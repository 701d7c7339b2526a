/**
 * Legacy HTTP+SSE (2024-11-05) at `/sse` + `/messages`, on `@modelcontextprotocol/server-legacy`: the
 * GET `/sse` stream is the session (it counts as in flight until it closes, which ends the session). Its
 * requests' answers ride on that stream, so the drain counts each request until its answer is sent (`drain.ts`).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { SSEServerTransport } from '@modelcontextprotocol/server-legacy/sse';
import { ErrorCode } from '../../errors.js';
import { countRequests, type Drain } from '../drain.js';
import type { ServerApp } from '../types.js';
import { sendJsonRpcError } from './body.js';
import { ownsSession, type RunnerSessions, requestOwner } from './mcpSessions.js';

/** `body`: the parsed POST body, read by the runner; `undefined` for GET. */
export function createSseHandler({ app, sessions, drain }: { app: ServerApp; sessions: RunnerSessions; drain: Drain }) {
  return async (req: IncomingMessage, res: ServerResponse, url: URL, body: unknown): Promise<void> => {
    if (url.pathname === '/sse') {
      if (req.method !== 'GET') {
        sendJsonRpcError(res, 405, ErrorCode.ServerError, 'Method not allowed: use GET /sse', { Allow: 'GET' });
        return;
      }
      if (!sessions.admit(res)) return;
      const transport = new SSEServerTransport('/messages', res);
      const server = app.createServer();
      const owner = requestOwner(req);
      sessions.table.add(
        transport.sessionId,
        { server, transport, ...(owner !== undefined ? { owner } : {}) },
        { inFlight: 1, used: true },
      );
      sessions.table.unreserve();
      res.once('close', () => void sessions.close(transport.sessionId));
      await server.connect(transport);
      // The answers ride on this stream, not on their POSTs: the drain counts each request until its answer is sent.
      countRequests(transport, drain, 'the server is shutting down; retry on another connection');
      return;
    }
    if (req.method !== 'POST') {
      sendJsonRpcError(res, 405, ErrorCode.ServerError, 'Method not allowed: use POST /messages', { Allow: 'POST' });
      return;
    }
    const id = url.searchParams.get('sessionId') ?? '';
    const session = sessions.table.get(id);
    const transport = session?.value.transport;
    if (!session || !(transport instanceof SSEServerTransport) || !ownsSession(session.value, req)) {
      sendJsonRpcError(res, 404, ErrorCode.ServerError, 'Session not found: open GET /sse first');
      return;
    }
    sessions.table.touch(session);
    await transport.handlePostMessage(req, res, body);
  };
}
