import type { ServerApp } from '@mcpkit/protocol-core';

type ScopeDeclaration = NonNullable<ServerApp['scopes']>;

/**
 * The OAuth scope of the one tool (with `--oauth-issuer`). `thinking:use`, not `:read`/`:write`: the tool only
 * records into the caller's own history, so there is no reading or writing to tell apart; reading that history as a
 * resource (and 2026 `subscriptions/listen` streams) needs it too.
 */
export const THINKING_SCOPES: ScopeDeclaration = { tools: { sequentialthinking: 'thinking:use' }, resources: 'thinking:use' };
