/**
 * JWT access tokens (RFC 9068) verified with jose: the signature against the issuer's JWKS (fetched
 * through `@mcpkit/net`, cached, fetched again when a token names an unknown `kid`, so key rotation
 * needs no restart), the algorithm allow-list, `iss`, `aud` (RFC 8707: a token for another resource is
 * refused), `exp` (required), `nbf` and `iat` (not in the future) with the configured clock skew, and the
 * header's `typ` when `--oauth-require-typ` names one. A key set that could not be fetched or used is not
 * asked for again for `JWKS_FAILURE_TTL_MS`: every request in that time gets the same 503, not a fetch.
 */
import { createRemoteJWKSet, customFetch, errors, type JWTVerifyGetKey, jwtVerify } from 'jose';
import type { Discovery } from './discovery.js';
import { type AuthHttp, AuthServerError, requireSecure, shownUrl } from './http.js';
import type { AuthConfig } from './options.js';
import { InvalidTokenError, type VerifiedToken, verifiedFromClaims } from './token.js';

export interface JwtVerifierOptions {
  discovery: Discovery;
  http: AuthHttp;
  now: () => number;
  /** Least time between two JWKS fetches for unknown `kid`s (jose's cooldown). Default 30 s. */
  jwksCooldownMs?: number;
}

export interface JwtVerifier {
  verify(token: string): Promise<VerifiedToken>;
  /**
   * Resolves when the issuer's key set is at hand (fetched now if it never was); rejects with the `AuthServerError`
   * requests would get (a failure is remembered like theirs, so a readiness probe does not fetch on every call).
   */
  ready(): Promise<void>;
}

/** How long a key set that could not be fetched (or used) is answered from memory before the next attempt. */
export const JWKS_FAILURE_TTL_MS = 30_000;

const COMPACT_JWS = /^[\w-]+\.[\w-]+\.[\w-]*$/;

const CLAIM_PROBLEMS: Record<string, string> = {
  aud: 'the token was issued for another resource',
  iss: 'the token was issued by another authorization server',
  nbf: 'the token is not valid yet',
  iat: 'the token was issued in the future',
  exp: 'the token has no expiry',
  typ: 'the token is not an access token (its header "typ" is not the one this server requires)',
};

/** jose's error as what the client is told, or an `AuthServerError` when the key set could not be had. */
function translate(error: unknown): Error {
  if (error instanceof AuthServerError || error instanceof InvalidTokenError) return error;
  if (error instanceof errors.JWTExpired) return new InvalidTokenError('the token has expired');
  if (error instanceof errors.JWTClaimValidationFailed)
    return new InvalidTokenError(CLAIM_PROBLEMS[error.claim] ?? `the token's "${error.claim}" claim is not acceptable`);
  if (error instanceof errors.JOSEAlgNotAllowed) return new InvalidTokenError("the token's signing algorithm is not accepted");
  if (error instanceof errors.JWSSignatureVerificationFailed) return new InvalidTokenError('the token signature is invalid');
  if (error instanceof errors.JWKSNoMatchingKey) return new InvalidTokenError("the token is not signed by any of the issuer's keys");
  if (error instanceof errors.JWKSMultipleMatchingKeys)
    return new InvalidTokenError('the token names no key (kid) and the issuer has several');
  if (error instanceof errors.JWKSTimeout || error instanceof errors.JWKSInvalid)
    return new AuthServerError(`the issuer's key set could not be used: ${error.message}`, { cause: error });
  if (error instanceof errors.JWSInvalid || error instanceof errors.JWTInvalid || error instanceof errors.JOSENotSupported)
    return new InvalidTokenError('the token is not a valid signed JWT');
  if (error instanceof errors.JOSEError && error.code === 'ERR_JOSE_GENERIC')
    return new AuthServerError(`the issuer's key set could not be fetched: ${error.message}`, { cause: error });
  return new AuthServerError(`token verification failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
}

export function createJwtVerifier(config: AuthConfig, { discovery, http, now, jwksCooldownMs = 30_000 }: JwtVerifierOptions): JwtVerifier {
  let keySet: ReturnType<typeof createRemoteJWKSet> | undefined;
  let failed: { at: number; error: AuthServerError } | undefined;

  async function remoteKeys(): Promise<ReturnType<typeof createRemoteJWKSet>> {
    if (keySet) return keySet;
    const configured = config.jwksUrl;
    const raw = configured ?? (await discovery.metadata()).jwks_uri;
    if (typeof raw !== 'string') throw new AuthServerError(`the metadata of ${config.issuer} has no jwks_uri; set --oauth-jwks-url`);
    let url: URL;
    try {
      url = new URL(raw);
      requireSecure(url);
    } catch (error) {
      throw new AuthServerError(
        `the jwks_uri ${JSON.stringify(shownUrl(raw))} of ${config.issuer}'s metadata cannot be fetched (${error instanceof Error ? error.message : String(error)}); set --oauth-jwks-url`,
      );
    }
    keySet ??= createRemoteJWKSet(url, {
      cooldownDuration: jwksCooldownMs,
      timeoutDuration: 5000,
      [customFetch]: http.jwksFetch,
    });
    return keySet;
  }

  /** The key for a token's header; a key set failure is remembered for `JWKS_FAILURE_TTL_MS` instead of refetched per request. */
  const getKey: JWTVerifyGetKey = async (header, token) => {
    if (failed && now() - failed.at < JWKS_FAILURE_TTL_MS) throw failed.error;
    try {
      const key = await (await remoteKeys())(header, token);
      failed = undefined;
      return key;
    } catch (error) {
      const translated = translate(error);
      if (translated instanceof AuthServerError) failed = { at: now(), error: translated };
      throw translated;
    }
  };

  return {
    async ready() {
      if (failed && now() - failed.at < JWKS_FAILURE_TTL_MS) throw failed.error;
      try {
        const keys = await remoteKeys();
        if (!keys.jwks()) await keys.reload();
        failed = undefined;
      } catch (error) {
        const translated = translate(error);
        if (translated instanceof AuthServerError) failed = { at: now(), error: translated };
        throw translated;
      }
    },
    async verify(token) {
      if (!COMPACT_JWS.test(token))
        throw new InvalidTokenError('the token is not a JWT (this server is not set up for token introspection)');
      try {
        const { payload } = await jwtVerify(token, getKey, {
          issuer: config.issuer,
          audience: config.audience,
          algorithms: [...config.algorithms],
          clockTolerance: config.clockSkewSeconds,
          currentDate: new Date(now()),
          requiredClaims: ['exp'],
          ...(config.requireTyp !== undefined ? { typ: config.requireTyp } : {}),
        });
        // jose checks `iat` only against a maximum age; a token issued beyond the skew in the future is refused here.
        if (typeof payload.iat === 'number' && payload.iat > now() / 1000 + config.clockSkewSeconds)
          throw new InvalidTokenError(CLAIM_PROBLEMS.iat as string);
        return verifiedFromClaims(payload as Record<string, unknown>);
      } catch (error) {
        throw translate(error);
      }
    },
  };
}
