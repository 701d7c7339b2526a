/**
 * How a server authenticates, as `mcp-agent servers` shows it: `none`, `token` (a static header
 * from the config), `oauth` (a stored login), `needs login`.
 */
import type { ServerConfig } from '../mcp/types.js';
import type { TokenStore } from './store.js';

export type ServerAuthState = 'none' | 'token' | 'oauth' | 'needs login';

/** A header that carries a credential: `Authorization`, an API key, a token. */
const CREDENTIAL_HEADER = /^(?:authorization|proxy-authorization|x-api-key|api-key|x-auth-token|.*-token)$/i;

/** True when the entry sends a static credential in `headers` (the `${env:NAME}` path): no OAuth for it. */
export function hasStaticCredential(config: ServerConfig): boolean {
  return config.kind === 'http' && Object.keys(config.headers).some((name) => CREDENTIAL_HEADER.test(name));
}

/** True when the agent does OAuth for this entry: HTTP, without a static credential. */
export function usesOAuth(config: ServerConfig): boolean {
  return config.kind === 'http' && !hasStaticCredential(config);
}

/** The state from the config and the store alone (before or without connecting). */
export async function storedAuthState(config: ServerConfig, store: TokenStore | undefined): Promise<ServerAuthState> {
  if (hasStaticCredential(config)) return 'token';
  if (!usesOAuth(config) || !store) return 'none';
  const record = await store.read({ name: config.name, url: config.kind === 'http' ? config.url : '' });
  return record?.tokens ? 'oauth' : 'none';
}
