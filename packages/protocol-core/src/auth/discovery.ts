/**
 * Authorization server metadata: RFC 8414 first (`/.well-known/oauth-authorization-server`, inserted
 * before the issuer's path), then OpenID Connect Discovery, in the order the MCP authorization spec
 * gives clients. The document's `issuer` must equal the configured issuer exactly (RFC 8414 §3.3),
 * else it is refused. A good answer is cached for an hour; a failure for a few seconds, so an
 * authorization server that is down is not asked again on every request.
 */
import { type AuthHttp, AuthServerError } from './http.js';

interface AuthServerMetadata {
  issuer: string;
  jwks_uri?: string;
  introspection_endpoint?: string;
  scopes_supported?: string[];
  [key: string]: unknown;
}

export interface Discovery {
  metadata(): Promise<AuthServerMetadata>;
}

/** How long a fetched document is used before it is fetched again. */
const METADATA_TTL_MS = 60 * 60_000;
/** How long a failure is answered from memory before the next attempt. */
const FAILURE_TTL_MS = 5000;

/** The metadata URLs to try for `issuer`, in order. */
export function metadataUrls(issuer: string): string[] {
  const url = new URL(issuer);
  const path = url.pathname === '/' ? '' : url.pathname.replace(/\/$/, '');
  const at = (p: string) => `${url.origin}${p}`;
  if (!path) return [at('/.well-known/oauth-authorization-server'), at('/.well-known/openid-configuration')];
  return [
    at(`/.well-known/oauth-authorization-server${path}`),
    at(`/.well-known/openid-configuration${path}`),
    at(`${path}/.well-known/openid-configuration`),
  ];
}

export function createDiscovery(issuer: string, http: AuthHttp, now: () => number = Date.now): Discovery {
  let cached: { at: number; metadata: AuthServerMetadata } | undefined;
  let failed: { at: number; error: unknown } | undefined;
  let pending: Promise<AuthServerMetadata> | undefined;

  async function fetchMetadata(): Promise<AuthServerMetadata> {
    const tried: string[] = [];
    for (const url of metadataUrls(issuer)) {
      const { status, json } = await http.getJson(url);
      if (json === undefined || typeof json !== 'object' || json === null || Array.isArray(json)) {
        tried.push(`${url} (${status})`);
        continue;
      }
      const doc = json as AuthServerMetadata;
      if (doc.issuer !== issuer)
        throw new AuthServerError(
          `the metadata at ${url} names the issuer ${JSON.stringify(doc.issuer)}, not ${JSON.stringify(issuer)} as configured with --oauth-issuer; refusing it (RFC 8414 §3.3)`,
        );
      return doc;
    }
    throw new AuthServerError(`no authorization server metadata for ${issuer}: tried ${tried.join(', ')}`);
  }

  return {
    async metadata() {
      if (cached && now() - cached.at < METADATA_TTL_MS) return cached.metadata;
      if (failed && now() - failed.at < FAILURE_TTL_MS) throw failed.error;
      pending ??= fetchMetadata()
        .then(
          (metadata) => {
            cached = { at: now(), metadata };
            failed = undefined;
            return metadata;
          },
          (error: unknown) => {
            failed = { at: now(), error };
            throw error;
          },
        )
        .finally(() => {
          pending = undefined;
        });
      return pending;
    },
  };
}
