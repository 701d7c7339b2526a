/**
 * The per-request half of the Streamable HTTP endpoint, on the SDK's `createMcpHandler`.
 *
 * A 2026-07-28 request (it carries the per-request `_meta` envelope; `server/discover` is one) is served
 * by the SDK from a fresh server out of `app.createServer`, with no session. A 2025 request is not ours to
 * serve here unless the runner is `--stateless`: then the SDK serves it per request too (its
 * `legacy: 'stateless'` posture), which is what our own stateless branch used to do. A 2026 response streams (SSE)
 * once the call sends a notification (progress), in `--stateless` too: JSON would drop them.
 * Sessionful 2025 traffic stays with the runner's session table (`mcpSessions.ts`).
 *
 * `subscriptions/listen` streams take a slot first (`listenSlots.ts`: per principal, reclaimed when full), then
 * hear the app's `bus`, or, when the app picks a bus per listener (`ServerApp.listenBus`, e.g. one per user), the
 * bus it picks for the context of the listen request.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createMcpHandler, isLegacyRequest, type McpRequestContext, type ServerEventBus } from '@modelcontextprotocol/server';
import type { Logger } from '../../logger.js';
import { forEra } from '../../skills/support.js';
import { markStatelessRequest } from '../../stateless.js';
import type { ServerApp } from '../types.js';
import { createListenSlots, isListenRequest, type ListenSlotOptions, type ListenSlots } from './listenSlots.js';
import { withSdkWarningsTo } from './sdkConsole.js';
import { serveWeb, webRequest } from './webBridge.js';

export interface EraRouter {
  /** Whether this parsed POST body is 2026-era traffic (the SDK's own classification). */
  isModern(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<boolean>;
  /** Serves a POST whose body was already read (and size-checked) by the runner. */
  serve(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void>;
  close(): Promise<void>;
  /** The open `subscriptions/listen` streams' slots (`listenSlots.ts`). */
  readonly listens: ListenSlots;
}

/** The request being served: what the SDK said of the instance it built for it (set by the factory). */
interface Served {
  context?: McpRequestContext;
}

/**
 * The bus handed to the SDK when the app picks one per listener. The SDK builds the listen request's instance
 * (our factory records its context) and then subscribes the stream, both within that request's async context,
 * so `subscribe` knows whose stream it is. Without a context it subscribes nowhere: never a bus meant for another.
 */
function perListenerBus(
  listenBus: (context: McpRequestContext) => ServerEventBus,
  requests: AsyncLocalStorage<Served>,
  shared: ServerEventBus | undefined,
  logger: Logger,
): ServerEventBus {
  return {
    publish: (event) => shared?.publish(event),
    subscribe(listener) {
      const context = requests.getStore()?.context;
      if (context) return listenBus(context).subscribe(listener);
      logger.warn('a subscriptions/listen stream opened outside of its request; it will hear no changes');
      return () => {};
    },
  };
}

export interface EraRouterOptions {
  stateless: boolean;
  /** The bounds of `subscriptions/listen` streams: in the process, and per principal. */
  listens: Omit<ListenSlotOptions, 'logger'>;
  logger: Logger;
}

export function createEraRouter(app: ServerApp, { stateless, listens: bounds, logger }: EraRouterOptions): EraRouter {
  const onerror = (error: Error) => logger.error('MCP handler error:', error);
  // Only an app that picks a bus per listener pays for tracking the request through the SDK.
  const listenBus = app.listenBus?.bind(app);
  const requests = listenBus ? new AsyncLocalStorage<Served>() : undefined;
  const bus = listenBus && requests ? perListenerBus(listenBus, requests, app.bus, logger) : app.bus;
  const factory = (context: McpRequestContext) => {
    const served = requests?.getStore();
    if (served) served.context = context;
    const server = app.createServer(context);
    // A 2025 request without a session (`--stateless`): its handlers must say what cannot work (`stateless.ts`).
    if (stateless && context.era === 'legacy') markStatelessRequest(server);
    return server;
  };
  // The runner's slots come first (fair between principals); the SDK's own limit, the same, is never reached first.
  const listens = createListenSlots({ ...bounds, logger });
  const handler = withSdkWarningsTo(logger, () =>
    createMcpHandler(forEra(factory), {
      legacy: stateless ? 'stateless' : 'reject',
      maxSubscriptions: bounds.maxListens,
      ...(bus ? { bus } : {}),
      onerror,
    }),
  );
  const node = (req: IncomingMessage, res: ServerResponse, body: unknown) => serveWeb(handler.fetch, req, res, body, onerror);
  return {
    async isModern(req, res, body) {
      // The body is already parsed: the SDK classifies from it (its documented fast path), so the `Request`
      // carries the headers only (no JSON re-serialised, cloned and parsed again on every request); the same
      // `Request` then serves it (`webBridge.ts`).
      return !(await isLegacyRequest(webRequest(req, res), body));
    },
    async serve(req, res, body) {
      if (refusedBeforeSdk(app, res, body)) return;
      if (isListenRequest(body) && !(await listens.admit(req, res, body.id))) return;
      await (requests ? requests.run({}, () => node(req, res, body)) : node(req, res, body));
    },
    close: () => handler.close(),
    listens,
  };
}

/**
 * What the app refuses before the SDK sees it (`ServerApp.preflight`: a required-task tool called without the
 * tasks extension is -32021), answered with HTTP 400 as the SDK answers -32021.
 */
function refusedBeforeSdk(app: ServerApp, res: ServerResponse, body: unknown): boolean {
  const error = app.preflight?.(body);
  if (!error) return false;
  const id = (body as { id?: unknown }).id ?? null;
  res.writeHead(400, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', id, error }));
  return true;
}
