import type { ServerApp } from '@mcpkit/protocol-core';

type ScopeDeclaration = NonNullable<ServerApp['scopes']>;

/**
 * The OAuth scopes of memory's tools (with `--oauth-issuer`): the reading tools need `memory:read`, the
 * writing tools `memory:write` (a writer that also reads asks for both); reading the graph as a resource
 * (`resources/read`, `resources/subscribe`, 2026 `subscriptions/listen` streams) needs `memory:read` too.
 * `--oauth-scope-map` renames them.
 */
export const MEMORY_SCOPES: ScopeDeclaration = {
  resources: 'memory:read',
  tools: {
    read_graph: 'memory:read',
    search_nodes: 'memory:read',
    open_nodes: 'memory:read',
    create_entities: 'memory:write',
    create_relations: 'memory:write',
    add_observations: 'memory:write',
    delete_entities: 'memory:write',
    delete_observations: 'memory:write',
    delete_relations: 'memory:write',
  },
};
