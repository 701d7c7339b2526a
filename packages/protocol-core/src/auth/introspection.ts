/**
 * Token introspection (RFC 7662) with client_secret_basic: the authorization server says whether the
 * token is active, so opaque tokens work and a revocation takes effect within `cacheMs` (a few seconds
 * at most; never past the token's `exp`). The answer must name this resource in `aud` (RFC 8707), as a
 * JWT must: an active token minted without a resource indicator (another client's `openid` token) is
 * refused. `iss`, `exp`, `nbf` and `iat` are checked when the answer has them.
 *
 * What the authorization server is asked is bounded: answers are kept by the token's SHA-256 (refusals
 * for `NEGATIVE_CACHE_MS`, so a replayed bad token is not asked about again), one question per token is in
 * flight at a time (concurrent requests with it share the answer), and at most `MAX_IN_FLIGHT` questions
 * run at once with `MAX_WAITING` more queued; beyond that a request gets 503 at once.
 */
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { Discovery } from './discovery.js';
import { type AuthHttp, AuthServerError } from './http.js';
import { createLimiter } from './limit.js';
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
/** How long a refused token is refused from memory. */
export const NEGATIVE_CACHE_MS = 30_000;
const MAX_NEGATIVE_ENTRIES = 10_000;
/** Introspection requests running at once, and waiting for a turn. */
export const MAX_IN_FLIGHT = 8;
export const MAX_WAITING = 256;

/** RFC 6749 §2.3.1: client id and secret are form-encoded before Basic encoding. */
function basicAuth(id: string, secret: string): string {
  const enc = (s: string) => encodeURIComponent(s).replace(/%20/g, '+');
  return `Basic ${Buffer.from(`${enc(id)}:${enc(secret)}`).toString('base64')}`;
}

function check(config: AuthConfig, answer: Record<string, unknown>, nowSeconds: number): VerifiedToken {
  if (answer.active !== true) throw new InvalidTokenError('the token is not active (expired, revoked or unknown)');
  const { token_type: type, iss, aud, exp, nbf, iat } = answer;
  const skew = config.clockSkewSeconds;
  if (typeof type === 'string' && type.toLowerCase() !== 'bearer') throw new InvalidTokenError('the token is not a bearer access token');
  if (iss !== undefined && iss !== config.issuer) throw new InvalidTokenError('the token was issued by another authorization server');
  if (aud === undefined || aud === null || (Array.isArray(aud) && aud.length === 0))
    throw new InvalidTokenError(
      'the token names no audience: it must be issued for this resource (request it with the resource indicator, RFC 8707)',
    );
  if (!(Array.isArray(aud) ? aud : [aud]).includes(config.audience))
    throw new InvalidTokenError('the token was issued for another resource');
  if (typeof exp === 'number' && exp + skew <= nowSeconds) throw new InvalidTokenError('the token has expired');
  if (typeof nbf === 'number' && nbf - skew > nowSeconds) throw new InvalidTokenError('the token is not valid yet');
  if (typeof iat === 'number' && iat - skew > nowSeconds) throw new InvalidTokenError('the token was issued in the future');
  return verifiedFromClaims(answer);
}

export function createIntrospector(config: AuthConfig, { discovery, http, now, cacheMs = 5000 }: IntrospectorOptions): Introspector {
  const client = config.client;
  if (!client) throw new AuthServerError('introspection needs MCP_OAUTH_CLIENT_ID and MCP_OAUTH_CLIENT_SECRET');
  const authorization = basicAuth(client.id, client.secret);
  const ttl = Math.min(Math.max(cacheMs, 0), MAX_CACHE_MS);
  // ttlResolution 0: the clock is read on every look-up (an injected clock may jump).
  const perf = { now };
  const active = new LRUCache<string, VerifiedToken>({ max: MAX_CACHE_ENTRIES, ttlResolution: 0, perf });
  const refused = new LRUCache<string, InvalidTokenError>({ max: MAX_NEGATIVE_ENTRIES, ttl: NEGATIVE_CACHE_MS, ttlResolution: 0, perf });
  const inFlight = new Map<string, Promise<VerifiedToken>>();
  const limiter = createLimiter({ concurrency: MAX_IN_FLIGHT, maxWaiting: MAX_WAITING, what: 'token introspections' });

  async function introspect(token: string): Promise<VerifiedToken> {
    const endpoint = (await discovery.metadata()).introspection_endpoint;
    if (typeof endpoint !== 'string') throw new AuthServerError(`the metadata of ${config.issuer} has no introspection_endpoint`);
    const { status, json } = await http.postForm(endpoint, { token, token_type_hint: 'access_token' }, { authorization });
    if (status === 401 || status === 403)
      throw new AuthServerError(
        `the introspection endpoint refused this server's client credentials (HTTP ${status}); check MCP_OAUTH_CLIENT_ID/SECRET`,
      );
    if (json === undefined || typeof json !== 'object' || json === null || Array.isArray(json))
      throw new AuthServerError(`the introspection endpoint answered HTTP ${status} without a JSON object`);
    return check(config, json as Record<string, unknown>, now() / 1000);
  }

  async function ask(key: string, token: string): Promise<VerifiedToken> {
    try {
      const verified = await limiter.run(() => introspect(token));
      const until = Math.min(now() + ttl, verified.expiresAt !== undefined ? verified.expiresAt * 1000 : Number.POSITIVE_INFINITY);
      if (until > now()) active.set(key, verified, { ttl: until - now() });
      return verified;
    } catch (error) {
      if (error instanceof InvalidTokenError) refused.set(key, error);
      throw error;
    } finally {
      inFlight.delete(key);
    }
  }

  return {
    async verify(token) {
      const key = createHash('sha256').update(token).digest('base64url');
      const hit = active.get(key);
      if (hit) return hit;
      const no = refused.get(key);
      if (no) throw no;
      let pending = inFlight.get(key);
      if (!pending) {
        pending = ask(key, token);
        inFlight.set(key, pending);
      }
      return pending;
    },
  };
}
