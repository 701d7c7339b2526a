/**
 * Token introspection (RFC 7662) with client_secret_basic: the authorization server says whether the
 * token is active, so opaque tokens work and a revocation takes effect within `cacheMs` (a few
 * seconds at most; only positive answers are kept, and never past the token's `exp`). `iss`, `aud`
 * (RFC 8707) and `exp` are checked when the answer has them.
 */
import { createHash } from 'node:crypto';
import type { Discovery } from './discovery.js';
import { type AuthHttp, AuthServerError } from './http.js';
import type { AuthConfig } from './options.js';
import { InvalidTokenError, type VerifiedToken, verifiedFromClaims } from './token.js';

export interface IntrospectorOptions {
  discovery: Discovery;
  http: AuthHttp;
  now: () => number;
  /** How long an active answer is reused. Default 5 s, at most 10 s. */
  cacheMs?: number;
}

export interface Introspector {
  verify(token: string): Promise<VerifiedToken>;
}

const MAX_CACHE_MS = 10_000;
const MAX_CACHE_ENTRIES = 1000;

/** RFC 6749 §2.3.1: client id and secret are form-encoded before Basic encoding. */
function basicAuth(id: string, secret: string): string {
  const enc = (s: string) => encodeURIComponent(s).replace(/%20/g, '+');
  return `Basic ${Buffer.from(`${enc(id)}:${enc(secret)}`).toString('base64')}`;
}

function check(config: AuthConfig, answer: Record<string, unknown>, nowSeconds: number): VerifiedToken {
  if (answer.active !== true) throw new InvalidTokenError('the token is not active (expired, revoked or unknown)');
  const { token_type: type, iss, aud, exp, nbf } = answer;
  if (typeof type === 'string' && type.toLowerCase() !== 'bearer') throw new InvalidTokenError('the token is not a bearer access token');
  if (iss !== undefined && iss !== config.issuer) throw new InvalidTokenError('the token was issued by another authorization server');
  if (aud !== undefined) {
    const audiences = Array.isArray(aud) ? aud : [aud];
    if (!audiences.includes(config.audience)) throw new InvalidTokenError('the token was issued for another resource');
  }
  if (typeof exp === 'number' && exp + config.clockSkewSeconds <= nowSeconds) throw new InvalidTokenError('the token has expired');
  if (typeof nbf === 'number' && nbf - config.clockSkewSeconds > nowSeconds) throw new InvalidTokenError('the token is not valid yet');
  return verifiedFromClaims(answer);
}

export function createIntrospector(config: AuthConfig, { discovery, http, now, cacheMs = 5000 }: IntrospectorOptions): Introspector {
  const client = config.client;
  if (!client) throw new AuthServerError('introspection needs MCP_OAUTH_CLIENT_ID and MCP_OAUTH_CLIENT_SECRET');
  const authorization = basicAuth(client.id, client.secret);
  const ttl = Math.min(Math.max(cacheMs, 0), MAX_CACHE_MS);
  const cache = new Map<string, { until: number; verified: VerifiedToken }>();

  function remember(key: string, verified: VerifiedToken): void {
    const until = Math.min(now() + ttl, verified.expiresAt !== undefined ? verified.expiresAt * 1000 : Number.POSITIVE_INFINITY);
    if (until <= now()) return;
    cache.delete(key);
    cache.set(key, { until, verified });
    while (cache.size > MAX_CACHE_ENTRIES) cache.delete(cache.keys().next().value as string);
  }

  return {
    async verify(token) {
      const key = createHash('sha256').update(token).digest('base64url');
      const hit = cache.get(key);
      if (hit && hit.until > now()) return hit.verified;
      cache.delete(key);

      const endpoint = (await discovery.metadata()).introspection_endpoint;
      if (typeof endpoint !== 'string') throw new AuthServerError(`the metadata of ${config.issuer} has no introspection_endpoint`);
      const { status, json } = await http.postForm(endpoint, { token, token_type_hint: 'access_token' }, { authorization });
      if (status === 401 || status === 403)
        throw new AuthServerError(
          `the introspection endpoint refused this server's client credentials (HTTP ${status}); check MCP_OAUTH_CLIENT_ID/SECRET`,
        );
      if (json === undefined || typeof json !== 'object' || json === null || Array.isArray(json))
        throw new AuthServerError(`the introspection endpoint answered HTTP ${status} without a JSON object`);
      const verified = check(config, json as Record<string, unknown>, now() / 1000);
      remember(key, verified);
      return verified;
    },
  };
}
