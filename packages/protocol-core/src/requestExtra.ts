/**
 * The v1-shaped `extra` our tool, prompt and resource handlers take, built from the v2 SDK's `ServerContext`.
 *
 * A migration bridge: every server package's handlers read `extra.signal`, `extra.sendRequest`,
 * `extra.sendNotification`, `extra._meta`, `extra.sessionId`; with this adapter they run unchanged on v2.
 * New code should read `extra.ctx` (the SDK's own context: `mcpReq.envelope`, `requestState`,
 * `inputResponses`, `http.authInfo`), and the adapter goes once no handler needs the old names.
 */
import type {
  AuthInfo,
  RequestId,
  RequestMeta,
  ServerContext,
  ServerNotification,
  ServerRequest,
  StandardSchemaV1,
} from '@modelcontextprotocol/server';
import type { TaskContext } from './tasksExtension/types.js';

export interface RequestExtra {
  /** The SDK's own context for this request. */
  ctx: ServerContext;
  signal: AbortSignal;
  requestId: RequestId;
  /** The 2025-era session, if any (Streamable HTTP with sessions); undefined on stdio and for 2026 requests. */
  sessionId?: string;
  _meta?: RequestMeta;
  authInfo?: AuthInfo;
  sendNotification(notification: ServerNotification): Promise<void>;
  sendRequest<T extends StandardSchemaV1>(
    request: ServerRequest | { method: string; params?: Record<string, unknown> },
    resultSchema: T,
    options?: { signal?: AbortSignal; timeout?: number },
  ): Promise<StandardSchemaV1.InferOutput<T>>;
  /** Ends this request's SSE stream early so the client resumes it (Streamable HTTP with an event store). */
  closeSSEStream?: () => void;
  /** Set when the call runs as a task (the tasks extension): its id, cancellation signal, progress and input requests. */
  task?: TaskContext;
}

export function toRequestExtra(ctx: ServerContext): RequestExtra {
  const authInfo = ctx.http?.authInfo;
  const closeSSE = (ctx.http as { closeSSE?: () => void } | undefined)?.closeSSE;
  return {
    ctx,
    signal: ctx.mcpReq.signal,
    requestId: ctx.mcpReq.id,
    ...(ctx.sessionId !== undefined ? { sessionId: ctx.sessionId } : {}),
    ...(ctx.mcpReq._meta !== undefined ? { _meta: ctx.mcpReq._meta } : {}),
    ...(authInfo ? { authInfo } : {}),
    sendNotification: (notification) => ctx.mcpReq.notify(notification),
    sendRequest: (request, resultSchema, options) =>
      ctx.mcpReq.send(request as never, resultSchema, options) as Promise<StandardSchemaV1.InferOutput<typeof resultSchema>>,
    ...(closeSSE ? { closeSSEStream: closeSSE } : {}),
  };
}
