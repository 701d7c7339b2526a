import { enableSubscriptions, type Logger, type Subscriptions, sendLog } from '@mcpkit/protocol-core';
import type { McpServer } from '@modelcontextprotocol/server';
import type { CurrentSession, Toggle } from './session.js';

/**
 * `resources/subscribe` and `resources/unsubscribe` for any URI, each acknowledged with the reference's
 * info-level log message before the response (trailing space included when there is no session id).
 */
export function enableCurrentSubscriptions(server: McpServer, logger: Logger): Subscriptions {
  return enableSubscriptions(server, {
    logger,
    onRequest: async ({ method, uri }, extra) => {
      const from = extra.sessionId ? `from session ${extra.sessionId}` : '';
      const data =
        method === 'resources/subscribe'
          ? `Received Subscribe Resource request for URI: ${uri} ${from}`
          : `Received Unsubscribe Resource request: ${uri} ${from}`;
      await sendLog(server, 'info', data, undefined, extra.sessionId);
    },
  });
}

/** `notifications/resources/updated` for every URI this session subscribed to, at once and every `resourceUpdatesMs`. */
export function createSubscriberUpdates(subscriptions: Subscriptions, every: CurrentSession['every'], resourceUpdatesMs: number): Toggle {
  let stop: (() => void) | undefined;
  return {
    get active() {
      return stop !== undefined;
    },
    start() {
      if (stop) return;
      stop = every(resourceUpdatesMs, () => {
        for (const uri of subscriptions.uris()) subscriptions.notifyUpdated(uri);
      });
    },
    stop() {
      stop?.();
      stop = undefined;
    },
  };
}
