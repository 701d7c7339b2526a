/**
 * Whose a thought chain is. Under OAuth, the access token's user (its subject, with the issuer), or for a token that
 * names no user (client credentials) its client; without OAuth (stdio, `--auth-token`, an open endpoint) every caller
 * is the one anonymous owner of the deployment, on every replica: the handle alone is then the capability (192
 * random bits, never logged). The owner is kept as a SHA-256, so no subject is stored.
 */
import { createHash } from 'node:crypto';
import type { RequestContext } from '@mcpkit/protocol-core';

export const ANONYMOUS_OWNER = 'anonymous';

/** The owner key of the request's caller. */
export function requestOwner(extra: Pick<RequestContext, 'http'>): string {
  const auth = extra.http?.authInfo;
  if (!auth) return ANONYMOUS_OWNER;
  const { subject, issuer } = (auth.extra ?? {}) as { subject?: unknown; issuer?: unknown };
  const who =
    typeof subject === 'string' && subject !== '' && subject !== auth.clientId
      ? `user\n${String(issuer ?? '')}\n${subject}`
      : `client\n${String(issuer ?? '')}\n${auth.clientId}`;
  return createHash('sha256').update(who, 'utf8').digest('hex');
}
