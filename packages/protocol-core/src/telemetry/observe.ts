/**
 * The one place that sees every request a server answers, in both protocol eras and on every transport: each
 * `McpServer` the app builds is wrapped so that, once the SDK has connected it to its transport (stdio's channel,
 * a 2025 session's Streamable HTTP or SSE transport, the SDK's per-request transport of a 2026 request), the
 * transport's inbound messages and outbound responses pass through here first.
 *
 * - Always: each inbound request runs in its request scope (`requestScope.ts`: JSON-RPC id, method, session), so
 *   the log lines its handler writes carry its id. That is one `AsyncLocalStorage.run` per request.
 * - With an observer (telemetry on): the observer hears the request and then its outcome (the response, or its
 *   cancellation, or the connection closing first) to time it and record it.
 */
import type { JSONRPCMessage, McpRequestContext, McpServer, Transport } from '@modelcontextprotocol/server';
import type { ServerApp } from '../runner/types.js';
import { inRequest, type RequestScope } from './requestScope.js';

/** How a request ended. */
export type RequestOutcome =
  | { kind: 'result'; result: unknown }
  | { kind: 'error'; code: number; message: string }
  /** Answered by no response: cancelled by the client, or its connection closed first. */
  | { kind: 'abandoned'; reason: 'cancelled' | 'connection_closed' };

export interface ObservedRequest {
  /** Added to the request's scope (the span's ids). */
  scope?: RequestScope;
  end(outcome: RequestOutcome, protocolVersion: string | undefined): void;
}

export interface InboundRequest {
  id: string | number;
  method: string;
  params?: Record<string, unknown>;
  sessionId?: string;
  /** The protocol version known when the request arrived (2025: the session's; 2026: the request's own). */
  protocolVersion?: string;
}

export interface RequestObserver {
  request(request: InboundRequest): ObservedRequest | undefined;
}

/** Where a 2026 request names its protocol version (`params._meta`). */
const PROTOCOL_VERSION_META = 'io.modelcontextprotocol/protocolVersion';

type Message = { id?: unknown; method?: unknown; params?: unknown; result?: unknown; error?: unknown };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function requestVersion(params: Record<string, unknown> | undefined): string | undefined {
  const meta = params?._meta;
  const version = isRecord(meta) ? meta[PROTOCOL_VERSION_META] : undefined;
  return typeof version === 'string' ? version : undefined;
}

/** Taps `transport` (already connected: its `onmessage`, `send` and `onclose` are the SDK's). */
function tap(transport: Transport, observer: RequestObserver | undefined, scopes: boolean): void {
  const deliver = transport.onmessage;
  if (!deliver) return;
  const open = new Map<string | number, ObservedRequest>();
  /** The session's protocol version, from its `initialize` answer (2025). */
  let sessionVersion: string | undefined;
  const finish = (id: unknown, outcome: RequestOutcome, version: string | undefined) => {
    if (typeof id !== 'string' && typeof id !== 'number') return;
    const observed = open.get(id);
    if (!observed) return;
    open.delete(id);
    observed.end(outcome, version);
  };

  transport.onmessage = (message, extra) => {
    const m = message as Message;
    if (typeof m.method !== 'string') return deliver(message, extra);
    const params = isRecord(m.params) ? m.params : undefined;
    if (m.id === undefined || m.id === null) {
      // `notifications/cancelled`: the SDK sends no answer for the request it aborts.
      if (observer && m.method === 'notifications/cancelled')
        finish(params?.requestId, { kind: 'abandoned', reason: 'cancelled' }, sessionVersion);
      return deliver(message, extra);
    }
    if (typeof m.id !== 'string' && typeof m.id !== 'number') return deliver(message, extra);
    const sessionId = transport.sessionId;
    const request: InboundRequest = { id: m.id, method: m.method, ...(params ? { params } : {}), ...(sessionId ? { sessionId } : {}) };
    const version = requestVersion(params) ?? sessionVersion;
    if (version) request.protocolVersion = version;
    const observed = observer?.request(request);
    if (observed) open.set(m.id, observed);
    if (!scopes) return deliver(message, extra);
    const scope: RequestScope = { id: m.id, method: m.method, ...(sessionId ? { session: sessionId } : {}), ...observed?.scope };
    return inRequest(scope, () => deliver(message, extra));
  };
  if (!observer) return;

  const send = transport.send.bind(transport);
  transport.send = (message: JSONRPCMessage, options) => {
    const m = message as Message;
    if (m.method === undefined && m.id !== undefined) {
      if (m.error !== undefined) {
        const error = isRecord(m.error) ? m.error : {};
        const code = typeof error.code === 'number' ? error.code : 0;
        finish(m.id, { kind: 'error', code, message: typeof error.message === 'string' ? error.message : '' }, sessionVersion);
      } else {
        const result = m.result;
        const answered = isRecord(result) && typeof result.protocolVersion === 'string' ? result.protocolVersion : undefined;
        const id = m.id as string | number;
        const observed = open.get(id);
        // The initialize answer names the session's version (and its own).
        if (answered && observed && sessionVersion === undefined) sessionVersion = answered;
        finish(id, { kind: 'result', result }, answered ?? sessionVersion);
      }
    }
    return send(message, options);
  };
  const onclose = transport.onclose;
  transport.onclose = () => {
    for (const id of [...open.keys()]) finish(id, { kind: 'abandoned', reason: 'connection_closed' }, sessionVersion);
    onclose?.();
  };
}

/** `server`, tapped on the transport it is connected to. */
function observeServer(server: McpServer, observer?: RequestObserver, scopes = true): McpServer {
  const connect = server.connect.bind(server);
  server.connect = async (transport: Transport) => {
    await connect(transport);
    tap(transport, observer, scopes);
  };
  return server;
}

/**
 * `app`, whose every server is tapped (`observeServer`) when there is something to do: request scopes for the log
 * (`scopes`, with `--log-format json`) or an observer (telemetry). Otherwise `app` itself: nothing is wrapped. On
 * Node 20 the first `AsyncLocalStorage.run` turns on the promise hooks that carry its value, which makes every
 * promise of the process dearer (measured: +20 µs on a 150 µs stdio echo), so the default text log does not use it.
 */
export function observeApp(app: ServerApp, { scopes, observer }: { scopes: boolean; observer?: RequestObserver | undefined }): ServerApp {
  if (!scopes && !observer) return app;
  const wrapped: ServerApp = Object.create(app);
  wrapped.createServer = (context?: McpRequestContext) => observeServer(app.createServer(context), observer, scopes);
  return wrapped;
}
