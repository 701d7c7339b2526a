import type { McpServer } from '@modelcontextprotocol/server';
import { type RequestExtra, toRequestExtra } from './requestExtra.js';
import { type Logger, silentLogger } from './logger.js';

export interface SubscriptionOptions {
  /** Called when this session subscribes to `uri` (also on a repeated subscribe). */
  onSubscribe?(uri: string): void;
  /** Called when this session unsubscribes from `uri`, and for every subscription left when the session closes. */
  onUnsubscribe?(uri: string): void;
  /**
   * Called for every `resources/subscribe` and `resources/unsubscribe` request, before it is answered
   * (also for a repeated subscribe or the unsubscribe of a URI that was not subscribed); awaited, so a
   * log notification sent here reaches the client before the response. A throw fails the request.
   */
  onRequest?(request: { method: 'resources/subscribe' | 'resources/unsubscribe'; uri: string }, extra: RequestExtra): void | Promise<void>;
  logger?: Logger;
}

export interface Subscriptions {
  isSubscribed(uri: string): boolean;
  /** This session's subscribed URIs, in the order they were subscribed. */
  uris(): string[];
  /**
   * Sends `notifications/resources/updated` for `uri` if this session's client subscribed to it and is
   * still connected. Never throws: a client that went away is logged at debug level.
   */
  notifyUpdated(uri: string): void;
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
  server.server.setRequestHandler('resources/subscribe', async ({ method, params }, ctx) => {
    await onRequest?.({ method, uri: params.uri }, toRequestExtra(ctx));
    uris.add(params.uri);
    onSubscribe?.(params.uri);
    return {};
  });
  server.server.setRequestHandler('resources/unsubscribe', async ({ method, params }, ctx) => {
    await onRequest?.({ method, uri: params.uri }, toRequestExtra(ctx));
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
      if (!uris.has(uri) || !server.isConnected()) return;
      server.server.sendResourceUpdated({ uri }).catch((error: unknown) => {
        logger.debug(`could not send notifications/resources/updated for ${uri}:`, error);
      });
    },
  };
}
