/**
 * The HTTP runner's 2025-era sessions (Streamable HTTP and legacy SSE): the session table with the
 * runner's values (each session's server and transport), closing a session's both halves, and the 503
 * for a new session when the table is full and nothing can be reclaimed.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import type { AuthInfo, McpServer, Server } from '@modelcontextprotocol/server';
import type { SSEServerTransport } from '@modelcontextprotocol/server-legacy/sse';
import { ErrorCode } from '../../errors.js';
import type { Logger } from '../../logger.js';
import { sendJsonRpcError } from './body.js';
import { createSessionTable, type SessionTable } from './sessionTable.js';

/** What the runner keeps per session. */
export interface SessionValue {
  server: McpServer | Server;
  transport: NodeStreamableHTTPServerTransport | SSEServerTransport;
  /**
   * With OAuth, who opened the session (the token's subject, or its client id when it has none): only the same
   * principal may use it, so a token of one user cannot ride another user's session id.
   */
  owner?: string;
}

/** The principal a request authenticated as (`req.auth`, set by the auth gate); `undefined` without OAuth. */
export function requestOwner(req: IncomingMessage): string | undefined {
  const auth = (req as IncomingMessage & { auth?: AuthInfo }).auth;
  if (!auth) return undefined;
  const subject = auth.extra?.subject;
  return typeof subject === 'string' && subject ? `sub:${subject}` : `client:${auth.clientId ?? ''}`;
}

/** Whether a request may use a session: its principal is the one that opened it (always, without OAuth). */
export function ownsSession(value: SessionValue, req: IncomingMessage): boolean {
  return value.owner === requestOwner(req);
}

export interface RunnerSessions {
  table: SessionTable<SessionValue>;
  /** Takes a session slot (reclaiming an idle session's if need be), or answers 503 and returns false. */
  admit(res: ServerResponse): boolean;
  close(id: string): Promise<void>;
}

export interface RunnerSessionOptions {
  maxSessions: number;
  idleMs: number;
  unusedIdleMs: number;
  reclaimIdleMs: number;
  logger: Logger;
  now?: () => number;
}

export function createRunnerSessions({ maxSessions, logger, ...timing }: RunnerSessionOptions): RunnerSessions {
  const table = createSessionTable<SessionValue>({
    maxSessions,
    ...timing,
    logger,
    close: async ({ id, value }) => {
      logger.debug(`session ${id} closed`);
      await Promise.allSettled([value.transport.close(), value.server.close()]);
    },
  });
  return {
    table,
    admit(res) {
      if (table.reserve()) return true;
      sendJsonRpcError(res, 503, ErrorCode.ServerError, `Service unavailable: the server already has ${maxSessions} live sessions`, {
        'Retry-After': '5',
      });
      return false;
    },
    close: async (id) => {
      await table.close(id);
    },
  };
}
