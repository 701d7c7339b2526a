/**
 * JWT access tokens (RFC 9068) verified with jose: the signature against the issuer's JWKS (fetched
 * through `@mcpkit/net`, cached, fetched again when a token names an unknown `kid`, so key rotation
 * needs no restart), the algorithm allow-list, `iss`, `aud` (RFC 8707: a token for another resource is
 * refused) and `exp` (required) with the configured clock skew.
 */
import { createRemoteJWKSet, customFetch, errors, type JWTVerifyGetKey, jwtVerify } from 'jose';
import type { Discovery } from './discovery.js';
import { type AuthHttp, AuthServerError } from './http.js';
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
}

const COMPACT_JWS = /^[\w-]+\.[\w-]+\.[\w-]*$/;

const CLAIM_PROBLEMS: Record<string, string> = {
  aud: 'the token was issued for another resource',
  iss: 'the token was issued by another authorization server',
  nbf: 'the token is not valid yet',
  iat: 'the token was issued in the future',
  exp: 'the token has no expiry',
};

/** jose's error as what the client is told, or an `AuthServerError` when the key set could not be had. */
function translate(error: unknown): Error {
  if (error instanceof AuthServerError) return error;
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
  let keySet: JWTVerifyGetKey | undefined;

  async function keys(): Promise<JWTVerifyGetKey> {
    if (keySet) return keySet;
    const url = config.jwksUrl ?? (await discovery.metadata()).jwks_uri;
    if (typeof url !== 'string') throw new AuthServerError(`the metadata of ${config.issuer} has no jwks_uri; set --oauth-jwks-url`);
    keySet ??= createRemoteJWKSet(new URL(url), {
      cooldownDuration: jwksCooldownMs,
      timeoutDuration: 5000,
      [customFetch]: http.jwksFetch,
    });
    return keySet;
  }

  return {
    async verify(token) {
      if (!COMPACT_JWS.test(token))
        throw new InvalidTokenError('the token is not a JWT (this server is not set up for token introspection)');
      const getKey = await keys();
      try {
        const { payload } = await jwtVerify(token, getKey, {
          issuer: config.issuer,
          audience: config.audience,
          algorithms: [...config.algorithms],
          clockTolerance: config.clockSkewSeconds,
          currentDate: new Date(now()),
          requiredClaims: ['exp'],
        });
        return verifiedFromClaims(payload as Record<string, unknown>);
      } catch (error) {
        throw translate(error);
      }
    },
  };
}
