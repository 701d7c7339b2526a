import type { ServerApp } from '@mcpkit/protocol-core';

type ScopeDeclaration = NonNullable<ServerApp['scopes']>;

const USE = 'everything:use';

/**
 * The OAuth scopes of everything's tools (with `--oauth-issuer`; `--oauth-scope-map` renames them): every tool needs
 * `everything:use`; the ones that show the server's environment (`get-env`, `printEnv`: secrets live there) also need
 * `everything:env`, and the ones that fetch URLs (`gzip-file-as-resource`, `zip`) also need `everything:network`.
 * Reading resources (list, read, subscribe, 2026 listen streams) and getting prompts need `everything:use`.
 */
export const EVERYTHING_SCOPES: ScopeDeclaration = {
  defaultTool: USE,
  resources: USE,
  prompts: USE,
  tools: {
    'get-env': [USE, 'everything:env'],
    printEnv: [USE, 'everything:env'],
    'gzip-file-as-resource': [USE, 'everything:network'],
    zip: [USE, 'everything:network'],
  },
};
