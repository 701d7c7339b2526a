import type { ServerApp } from '@mcpkit/protocol-core';

type ScopeDeclaration = NonNullable<ServerApp['scopes']>;

/** The OAuth scope of fetch's one tool (with `--oauth-issuer`); `--oauth-scope-map` renames it. */
export const FETCH_SCOPES: ScopeDeclaration = { tools: { fetch: 'fetch:read' } };
