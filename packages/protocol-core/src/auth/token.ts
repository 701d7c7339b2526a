/**
 * What a verified access token says, whichever way it was verified (JWT or introspection), and the
 * one error for a token the server refuses. Neither ever holds the token itself in a message.
 */

export interface VerifiedToken {
  /** `sub`: the resource owner (a user, or the client itself for client credentials). */
  subject?: string;
  /** `client_id` (RFC 9068/7662), else `azp`, else `cid`; empty when the token names none. */
  clientId: string;
  /** Granted scopes, from `scope` (space-separated) or `scp` (string or array). */
  scopes: string[];
  /** `exp`, in seconds since the epoch. */
  expiresAt?: number;
}

/** The token is refused: 401 `invalid_token`. `description` is safe to send to the client. */
export class InvalidTokenError extends Error {
  override readonly name = 'InvalidTokenError';
  constructor(readonly description: string) {
    super(description);
  }
}

/** Scopes from `scope` (RFC 9068, RFC 7662) or `scp` (a string or an array, as some providers send). */
function scopesFromClaims(claims: Record<string, unknown>): string[] {
  const { scope, scp } = claims;
  const raw = typeof scope === 'string' ? scope.split(' ') : Array.isArray(scp) ? scp : typeof scp === 'string' ? scp.split(' ') : [];
  return [...new Set(raw.filter((s): s is string => typeof s === 'string' && s !== ''))];
}

/** The token's client: `client_id`, else `azp`, else `cid`. */
function clientIdFromClaims(claims: Record<string, unknown>): string {
  for (const key of ['client_id', 'azp', 'cid']) {
    const value = claims[key];
    if (typeof value === 'string' && value) return value;
  }
  return '';
}

/** The claims shared by both verifiers as a `VerifiedToken`. */
export function verifiedFromClaims(claims: Record<string, unknown>): VerifiedToken {
  return {
    ...(typeof claims.sub === 'string' && claims.sub ? { subject: claims.sub } : {}),
    clientId: clientIdFromClaims(claims),
    scopes: scopesFromClaims(claims),
    ...(typeof claims.exp === 'number' ? { expiresAt: claims.exp } : {}),
  };
}
