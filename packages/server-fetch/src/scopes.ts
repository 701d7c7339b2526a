import type { ServerApp } from '@mcpkit/protocol-core';

type ScopeDeclaration = NonNullable<ServerApp['scopes']>;

/**
 * The OAuth scope of fetch's one tool and of its prompt (with `--oauth-issuer`): `prompts/get` of `fetch` fetches
 * the URL too, so it needs `fetch:read` as the tool does. `--oauth-scope-map` renames it.
 */
export const FETCH_SCOPES: ScopeDeclaration = { tools: { fetch: 'fetch:read' }, prompts: 'fetch:read' };
