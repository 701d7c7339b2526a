import { defineResource, ErrorCode, type RequestContext, type ResourceDefinition, type Subscriptions } from '@mcpkit/protocol-core';
import { ProtocolError } from '@modelcontextprotocol/server';
import type { TimerId } from '../../shared/scheduler.js';
import { RED_PIXEL_PNG } from './media.js';
import type { ConformanceSession } from './session.js';

const STATIC_TEXT_URI = 'test://static-text';
const STATIC_BINARY_URI = 'test://static-binary';
const TEMPLATE_URI = 'test://template/{id}/data';
const WATCHED_URI = 'test://watched-resource';
const TEMPLATE_MATCH = /^test:\/\/template\/[^/]+\/data$/;

/** Scenario `resources-read-text`. */
const staticText = defineResource<ConformanceSession>({
  name: 'static-text',
  title: 'Static Text Resource',
  description: 'A static text resource for testing',
  mimeType: 'text/plain',
  uri: STATIC_TEXT_URI,
  read: () => ({ contents: [{ uri: STATIC_TEXT_URI, mimeType: 'text/plain', text: 'This is the content of the static text resource.' }] }),
});

/** Scenario `resources-read-binary`. */
const staticBinary = defineResource<ConformanceSession>({
  name: 'static-binary',
  title: 'Static Binary Resource',
  description: 'A static binary resource for testing: a 1×1 red PNG',
  mimeType: 'image/png',
  uri: STATIC_BINARY_URI,
  read: () => ({ contents: [{ uri: STATIC_BINARY_URI, mimeType: 'image/png', blob: RED_PIXEL_PNG }] }),
});

/** Scenario `resources-templates-read`: `{id}` is substituted into the JSON document. */
const template = defineResource<ConformanceSession>({
  name: 'template',
  title: 'Resource Template',
  description: 'A resource template with parameter substitution: test://template/{id}/data is a JSON document about {id}',
  mimeType: 'application/json',
  uri: TEMPLATE_URI,
  read: (uri, { id }) => ({
    contents: [
      { uri: uri.href, mimeType: 'application/json', text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }) },
    ],
  }),
});

/** Scenarios `resources-subscribe` and `resources-unsubscribe`: its text names how often it changed in this session. */
const watched = defineResource<ConformanceSession>({
  name: 'watched-resource',
  title: 'Watched Resource',
  description: 'A resource that changes every few seconds while the client is subscribed to it (notifications/resources/updated)',
  mimeType: 'text/plain',
  uri: WATCHED_URI,
  read: (_uri, _params, session) => ({
    contents: [{ uri: WATCHED_URI, mimeType: 'text/plain', text: `Watched resource content (revision ${session.watchedRevision})` }],
  }),
});

/** In `resources/list` order (the template is listed by `resources/templates/list`). */
export const resources: ReadonlyArray<ResourceDefinition<ConformanceSession>> = [staticText, staticBinary, template, watched];

/** Whether this server serves `uri` (so a subscription to it can ever be honoured). */
function isServedUri(uri: string): boolean {
  return uri === STATIC_TEXT_URI || uri === STATIC_BINARY_URI || uri === WATCHED_URI || TEMPLATE_MATCH.test(uri);
}

/**
 * The subscription callbacks for `enableSubscriptions`: a subscription to an unknown URI is refused
 * (-32002, resource not found), each request is logged to the client, and `test://watched-resource`
 * changes every `watchedUpdateMs` while subscribed (a timer of `config.scheduler`, stopped on unsubscribe and when the
 * session closes).
 */
export function watchedResourceUpdates(session: ConformanceSession, subscriptions: () => Subscriptions) {
  let timer: TimerId | undefined;
  const stop = () => {
    session.config.scheduler.clearInterval(timer);
    timer = undefined;
  };
  session.closed.addEventListener('abort', stop, { once: true });
  return {
    async onRequest({ method, uri }: { method: 'resources/subscribe' | 'resources/unsubscribe'; uri: string }, extra: RequestContext) {
      if (method === 'resources/subscribe' && !isServedUri(uri)) {
        throw new ProtocolError(ErrorCode.ResourceNotFound, `Resource not found: ${uri}`, { uri });
      }
      await session.log('info', `${method === 'resources/subscribe' ? 'Subscribed to' : 'Unsubscribed from'} resource: ${uri}`, extra);
    },
    onSubscribe(uri: string) {
      if (uri !== WATCHED_URI || timer || session.closed.aborted) return;
      timer = session.config.scheduler.setInterval(() => {
        session.watchedRevision++;
        subscriptions().notifyUpdated(WATCHED_URI);
      }, session.config.watchedUpdateMs);
    },
    onUnsubscribe(uri: string) {
      if (uri === WATCHED_URI) stop();
    },
  };
}
