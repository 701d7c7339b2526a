/**
 * Whose download a page in the cache is, so that a continuation reads the download its first part came from and no
 * other client's download replaces it: the 2025 session (with the user, under OAuth); else the access token's user
 * (or client, for a token without a user) under OAuth; else one owner for the process (stdio is one client; 2026-07-28 requests without OAuth carry nothing that tells two
 * clients apart). Kept as a SHA-256, so no subject or session id sits in the cache's keys.
 */
import { createHash } from 'node:crypto';
import type { RequestContext } from '@mcpkit/protocol-core';

export function downloadOwner(extra: Pick<RequestContext, 'http' | 'sessionId'>): string {
  const auth = extra.http?.authInfo;
  const parts: string[] = [];
  if (auth) {
    const { subject, issuer } = (auth.extra ?? {}) as { subject?: unknown; issuer?: unknown };
    parts.push(
      typeof subject === 'string' && subject !== '' && subject !== auth.clientId
        ? `user\n${String(issuer ?? '')}\n${subject}`
        : `client\n${String(issuer ?? '')}\n${auth.clientId}`,
    );
  }
  if (extra.sessionId !== undefined) parts.push(`session\n${extra.sessionId}`);
  if (parts.length === 0) return 'process';
  return createHash('sha256').update(parts.join('\n\n'), 'utf8').digest('base64url');
}
