/**
 * `--stateless` without lies. A 2025-era request on a `--stateless` server is served by a fresh instance that has
 * never seen the client's `initialize` and is gone once it answered: what needs a session (subscriptions, the
 * client's capabilities, tasks, per-session toggles) cannot work, and must say so instead of answering a success
 * that does nothing. The runner marks such an instance (`markStatelessRequest`); handlers ask
 * `servesStatelessRequest` and answer with the texts below. A 2026-07-28 request needs none of this: it carries
 * its client's capabilities, and changes travel on `subscriptions/listen` streams.
 */
import type { McpServer, Server } from '@modelcontextprotocol/server';

const STATELESS = Symbol.for('mcpkit.statelessRequest');

/** Records that `server` answers one 2025-era request of a `--stateless` runner (the runner calls it). */
export function markStatelessRequest(server: McpServer | Server): void {
  Object.defineProperty(server, STATELESS, { value: true });
  if ('server' in server) Object.defineProperty(server.server, STATELESS, { value: true });
}

/** Whether `server` answers one 2025-era request of a `--stateless` runner: no session, no `initialize` seen. */
export function servesStatelessRequest(server: McpServer | Server): boolean {
  return (server as { [STATELESS]?: boolean })[STATELESS] === true;
}

/** The answer to `resources/subscribe` (and unsubscribe) on a stateless request. */
export const STATELESS_SUBSCRIPTIONS = 'this server runs --stateless: subscriptions need a session or a 2026 listen stream';

/** Why a capability-gated feature cannot tell what the client declared on a stateless request. */
export function statelessCapabilities(feature: string): string {
  return `this server runs --stateless: the client's capabilities from initialize are not kept; ${feature} needs a session or a 2026 request`;
}

/** Why a feature whose state lives in the session (a task, a toggle) cannot work on a stateless request. */
export function statelessSession(feature: string): string {
  return `this server runs --stateless: ${feature} needs a session, and every request here gets a fresh server that is gone once it answered`;
}
