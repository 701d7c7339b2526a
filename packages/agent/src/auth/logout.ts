/**
 * `logout`: forget a server's tokens (the whole record: registration, tokens, discovery), after
 * asking the authorization server to revoke them (RFC 7009) when its metadata names a revocation
 * endpoint. Revocation is best effort: a failure is reported, the local tokens go anyway.
 */
import { assertSecureTokenEndpoint, type FetchLike, type OAuthClientInformationMixed } from '@modelcontextprotocol/client';
import type { HttpServerConfig } from '../mcp/types.js';
import type { StoredServerAuth, TokenStore } from './store.js';

const REVOKE_TIMEOUT_MS = 5_000;

export interface LogoutOptions {
  store: TokenStore;
  /** Default: the global `fetch`. */
  fetch?: FetchLike;
}

export interface LogoutResult {
  /** There were stored credentials, now deleted. */
  removed: boolean;
  /** `revoked`: the authorization server accepted the revocation; `not-offered`: it has no revocation endpoint; `failed`: it did not answer 200. */
  revocation: 'revoked' | 'not-offered' | 'failed' | 'nothing-to-revoke';
}

function clientAuth(
  client: OAuthClientInformationMixed | undefined,
  server: HttpServerConfig,
  body: URLSearchParams,
  headers: Record<string, string>,
): void {
  const id = server.oauth?.clientId ?? client?.client_id;
  const secret = server.oauth?.clientId !== undefined ? server.oauth.clientSecret : client?.client_secret;
  if (id === undefined) return;
  if (secret !== undefined) {
    headers.authorization = `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;
  } else {
    body.set('client_id', id);
  }
}

async function revoke(record: StoredServerAuth, server: HttpServerConfig, fetchFn: FetchLike): Promise<LogoutResult['revocation']> {
  const tokens = record.tokens;
  if (!tokens) return 'nothing-to-revoke';
  // OpenID discovery metadata does not type it, but publishes it too (RFC 8414 §2 / RFC 7009).
  const metadata = record.discoveryState?.authorizationServerMetadata as { revocation_endpoint?: unknown } | undefined;
  const endpoint = metadata?.revocation_endpoint;
  if (typeof endpoint !== 'string') return 'not-offered';
  try {
    // The same rule as for the token endpoint: https, or a loopback host.
    assertSecureTokenEndpoint(endpoint);
  } catch {
    return 'failed';
  }
  // Revoking the refresh token ends the grant, access tokens included (RFC 7009 §2.1); a JWT
  // access token often cannot be revoked on its own (`unsupported_token_type`).
  const pending: [string, string][] = tokens.refresh_token
    ? [[tokens.refresh_token, 'refresh_token']]
    : [[tokens.access_token, 'access_token']];
  let ok = true;
  for (const [token, hint] of pending) {
    const body = new URLSearchParams({ token, token_type_hint: hint });
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
    clientAuth(record.clientInformation, server, body, headers);
    try {
      const response = await fetchFn(endpoint, {
        method: 'POST',
        headers,
        body: body.toString(),
        signal: AbortSignal.timeout(REVOKE_TIMEOUT_MS),
      });
      await response.body?.cancel();
      if (!response.ok) ok = false;
    } catch {
      ok = false;
    }
  }
  return ok ? 'revoked' : 'failed';
}

/** Revoke (best effort) and delete what is stored for `server`. */
export async function logout(server: HttpServerConfig, options: LogoutOptions): Promise<LogoutResult> {
  const key = { name: server.name, url: server.url };
  const record = await options.store.read(key);
  if (!record) return { removed: false, revocation: 'nothing-to-revoke' };
  const revocation = await revoke(record, server, options.fetch ?? fetch);
  const removed = await options.store.remove(key);
  return { removed, revocation };
}
