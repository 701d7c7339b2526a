/**
 * Protected resource metadata (RFC 9728) and the `WWW-Authenticate` challenges (RFC 6750) that point
 * clients at it, which is how MCP clients discover the authorization server.
 */

export interface ProtectedResourceMetadata {
  resource: string;
  authorization_servers: string[];
  scopes_supported?: string[];
  bearer_methods_supported: string[];
  resource_name?: string;
}

const WELL_KNOWN = '/.well-known/oauth-protected-resource';

/**
 * The paths to serve the metadata at, for a resource identifier: the RFC 9728 path (the well-known
 * prefix inserted before the resource's path, `/mcp` → `/.well-known/oauth-protected-resource/mcp`)
 * first, then the bare well-known path, which clients try next when the challenge names no document.
 */
export function metadataPaths(resource: string): string[] {
  const { pathname } = new URL(resource);
  if (pathname === '/' || pathname === '') return [WELL_KNOWN];
  return [`${WELL_KNOWN}${pathname}`, WELL_KNOWN];
}

/** The absolute URL of the metadata document, as `resource_metadata` names it. */
export function metadataUrl(resource: string): string {
  const url = new URL(resource);
  return `${url.origin}${metadataPaths(resource)[0]}${url.search}`;
}

export function protectedResourceMetadata(params: {
  resource: string;
  issuer: string;
  scopes: readonly string[];
  resourceName?: string;
}): ProtectedResourceMetadata {
  return {
    resource: params.resource,
    authorization_servers: [params.issuer],
    ...(params.scopes.length ? { scopes_supported: [...params.scopes] } : {}),
    bearer_methods_supported: ['header'],
    ...(params.resourceName ? { resource_name: params.resourceName } : {}),
  };
}

/** An RFC 7235 quoted-string (`"` and `\` escaped; control characters dropped). */
function quote(value: string): string {
  const printable = [...value].filter((c) => c >= ' ' && c !== '\x7f').join('');
  return `"${printable.replace(/["\\]/g, (c) => `\\${c}`)}"`;
}

export interface ChallengeParams {
  resourceMetadata: string;
  error?: 'invalid_token' | 'insufficient_scope' | 'invalid_request';
  description?: string;
  /** Scopes the client should ask for. */
  scopes?: readonly string[];
}

/** `Bearer resource_metadata="…", error="…", error_description="…", scope="…"`. */
export function bearerChallenge({ resourceMetadata, error, description, scopes }: ChallengeParams): string {
  const parts = [`resource_metadata=${quote(resourceMetadata)}`];
  if (error) parts.push(`error=${quote(error)}`);
  if (error && description) parts.push(`error_description=${quote(description)}`);
  if (scopes?.length) parts.push(`scope=${quote(scopes.join(' '))}`);
  return `Bearer ${parts.join(', ')}`;
}
