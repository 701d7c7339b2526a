/**
 * Resource subscriptions in both protocol eras.
 *
 * - 2025-11-25: a session asks with `resources/subscribe` and hears `notifications/resources/updated`
 *   unsolicited. `enableSubscriptions` keeps that session's set (one per server instance).
 * - 2026-07-28: a client opens a `subscriptions/listen` stream, which the SDK's serving entry answers, not
 *   the server instance. Over stdio, `serveStdio` routes the instance's own change notifications onto the
 *   connection's open streams, so `notifyUpdated` sends them on a 2026 connection whatever was subscribed
 *   (the SDK filters per stream). Over HTTP, instances are per request: changes are published on the
 *   process's `ListenBus` (`createListenBus`), which the runner hands to the SDK's `createMcpHandler`.
 */
import {
  InMemoryServerEventBus,
  type McpRequestContext,
  type McpServer,
  ProtocolError,
  ProtocolErrorCode,
  type ServerEvent,
  type ServerEventBus,
  type ServerNotifier,
} from '@modelcontextprotocol/server';
import { type Logger, silentLogger } from './logger.js';
import type { RequestContext } from './requestContext.js';
import { STATELESS_SUBSCRIPTIONS, servesStatelessRequest } from './stateless.js';

export interface SubscriptionOptions {
  /**
   * Called when this session subscribes to `uri` (also on a repeated subscribe); awaited before the answer, so
   * a server that needs time to start watching (a database LISTEN) answers once changes will be heard.
   */
  onSubscribe?(uri: string): void | Promise<void>;
  /** Called when this session unsubscribes from `uri`, and for every subscription left when the session closes. */
  onUnsubscribe?(uri: string): void;
  /**
   * Called for every `resources/subscribe` and `resources/unsubscribe` request, before it is answered
   * (also for a repeated subscribe or the unsubscribe of a URI that was not subscribed); awaited, so a
   * log notification sent here reaches the client before the response. A throw fails the request.
   */
  onRequest?(
    request: { method: 'resources/subscribe' | 'resources/unsubscribe'; uri: string },
    extra: RequestContext,
  ): void | Promise<void>;
  logger?: Logger;
}

export interface Subscriptions {
  /** Whether this session subscribed to `uri` with `resources/subscribe` (2025 era). */
  isSubscribed(uri: string): boolean;
  /** This session's `resources/subscribe` URIs, in the order they were subscribed. */
  uris(): string[];
  /**
   * Sends `notifications/resources/updated` for `uri` when this session's client can hear it: a 2025
   * session that subscribed to it, or a 2026 connection (its `subscriptions/listen` streams, filtered by
   * the SDK). Never throws: a client that went away is logged at debug level.
   */
  notifyUpdated(uri: string): void;
}

/** The first protocol revision whose change notifications travel on `subscriptions/listen` streams. */
const LISTEN_REVISION = '2026-07-28';

/**
 * Whether `server` serves the 2026 era. The SDK sets the revision on a 2026 instance before it connects;
 * a 2025 session reports what `initialize` negotiated. Revisions are dates, so they compare as strings.
 */
function servesListenEra(server: McpServer): boolean {
  // The accessor is deprecated for handlers (they read `ctx.mcpReq.envelope`); outside a request it is the one public view.
  const version = server.server.getNegotiatedProtocolVersion();
  return version !== undefined && version >= LISTEN_REVISION;
}

/**
 * Whether the instance built for `context` carries `subscriptions/listen` streams itself for its whole
 * connection: a 2026 connection over stdio (the SDK's `serveStdio` routes its notifications onto the
 * streams). Not an HTTP instance, which lives for one request (`createMcpHandler` always passes the request),
 * nor a 2025 one. Such an instance may be listened to at any time, without a request of its own saying so.
 */
export function holdsListenStreams(context: McpRequestContext | undefined): boolean {
  return context?.era === 'modern' && context.requestInfo === undefined;
}

/**
 * Declares `resources.subscribe` on `server` and keeps this session's subscriptions (the McpServer
 * API leaves `resources/subscribe` to the server author). One per server instance, so per session.
 */
export function enableSubscriptions(
  server: McpServer,
  { onSubscribe, onUnsubscribe, onRequest, logger = silentLogger }: SubscriptionOptions = {},
): Subscriptions {
  const uris = new Set<string>();
  server.server.registerCapabilities({ resources: { subscribe: true } });
  // On a --stateless 2025 request the instance is gone once it answered: nothing subscribed would ever arrive.
  const refuseStateless = () => {
    if (servesStatelessRequest(server)) throw new ProtocolError(ProtocolErrorCode.InvalidRequest, STATELESS_SUBSCRIPTIONS);
  };
  server.server.setRequestHandler('resources/subscribe', async ({ method, params }, ctx) => {
    refuseStateless();
    await onRequest?.({ method, uri: params.uri }, ctx);
    uris.add(params.uri);
    await onSubscribe?.(params.uri);
    return {};
  });
  server.server.setRequestHandler('resources/unsubscribe', async ({ method, params }, ctx) => {
    refuseStateless();
    await onRequest?.({ method, uri: params.uri }, ctx);
    if (uris.delete(params.uri)) onUnsubscribe?.(params.uri);
    return {};
  });
  const previousOnClose = server.server.onclose;
  server.server.onclose = () => {
    previousOnClose?.();
    for (const uri of uris) onUnsubscribe?.(uri);
    uris.clear();
  };
  return {
    isSubscribed: (uri) => uris.has(uri),
    uris: () => [...uris],
    notifyUpdated(uri) {
      if (!server.isConnected() || !(uris.has(uri) || servesListenEra(server))) return;
      server.server.sendResourceUpdated({ uri }).catch((error: unknown) => {
        logger.debug(`could not send notifications/resources/updated for ${uri}:`, error);
      });
    },
  };
}

export interface ListenBusOptions {
  /**
   * Called when the first `subscriptions/listen` stream of the process opens; what it returns is called
   * when the last one closes. For work worth doing only while someone listens (watching a store for other
   * processes' writes).
   */
  whileListened?(): () => void;
  logger?: Logger;
}

export interface ListenBus {
  /** Hand this to the runner (`ServerApp.bus`): the SDK's HTTP handler subscribes each open stream to it. */
  bus: ServerEventBus;
  /** Publishes a change to every open stream that asked for it (`resourceUpdated(uri)`, `resourcesChanged()`, …). */
  notify: ServerNotifier;
  /** How many streams are open now. */
  listeners(): number;
}

/**
 * The process-wide change feed for 2026 `subscriptions/listen` streams over HTTP, where server instances
 * live for one request and cannot hold a stream. Create one per process, next to the shared state whose
 * changes it announces; per-stream filtering and subscription ids are the SDK's.
 */
export function createListenBus({ whileListened, logger = silentLogger }: ListenBusOptions = {}): ListenBus {
  const inner = new InMemoryServerEventBus((error) => logger.debug('a subscriptions/listen stream failed to take a change:', error));
  let count = 0;
  let stop: (() => void) | undefined;
  const bus: ServerEventBus = {
    publish: (event: ServerEvent) => inner.publish(event),
    subscribe(listener) {
      const unsubscribe = inner.subscribe(listener);
      if (count++ === 0) stop = whileListened?.();
      let live = true;
      return () => {
        if (!live) return;
        live = false;
        unsubscribe();
        if (--count > 0) return;
        const release = stop;
        stop = undefined;
        release?.();
      };
    },
  };
  return {
    bus,
    notify: {
      toolsChanged: () => bus.publish({ kind: 'tools_list_changed' }),
      promptsChanged: () => bus.publish({ kind: 'prompts_list_changed' }),
      resourcesChanged: () => bus.publish({ kind: 'resources_list_changed' }),
      resourceUpdated: (uri) => bus.publish({ kind: 'resource_updated', uri }),
    },
    listeners: () => count,
  };
}
