/**
 * OAuth in front of the MCP endpoint (`--oauth-issuer`): the protected resource metadata (RFC 9728) served
 * without auth at its well-known paths, and every MCP request's bearer token checked by the auth guard
 * (`../auth/guard.ts`) before any transport or the SDK sees it. A request that passes carries the token's
 * `AuthInfo` as `req.auth`, which the SDK hands every handler as `extra.authInfo` (the user: its
 * `extra.subject`).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AuthInfo } from '@modelcontextprotocol/server';
import type { AuthGuard } from '../auth/guard.js';
import type { Logger } from '../logger.js';

export interface AuthGate {
  /** Answers a GET of the metadata document; `false` when `url` is not one of its paths. */
  serveMetadata(req: IncomingMessage, res: ServerResponse, url: URL): boolean;
  /** Checks the request's token (and, for `tools/call`, its scopes); answers 401/403/503 itself and returns `false`. */
  admit(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<boolean>;
}

export function createAuthGate(guard: AuthGuard, logger: Logger): AuthGate {
  const paths = new Set(guard.metadataPaths);
  return {
    serveMetadata(req, res, url) {
      if (!paths.has(url.pathname)) return false;
      if (req.method === 'OPTIONS') {
        res.writeHead(204, {
          'access-control-allow-origin': '*',
          'access-control-allow-methods': 'GET',
          'access-control-max-age': '86400',
        });
        res.end();
        return true;
      }
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        res.writeHead(405, { allow: 'GET', 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: 'method_not_allowed' }));
        return true;
      }
      // Browser clients read it cross-origin; it holds nothing secret.
      res.writeHead(200, { 'content-type': 'application/json', 'access-control-allow-origin': '*', 'cache-control': 'max-age=3600' });
      res.end(req.method === 'HEAD' ? undefined : JSON.stringify(guard.metadataDocument()));
      return true;
    },

    async admit(req, res, body) {
      const result = await guard.check(req.headers, body);
      if (result.ok) {
        (req as IncomingMessage & { auth?: AuthInfo }).auth = result.authInfo;
        return true;
      }
      logger.debug(`refused ${req.method} ${req.url}: ${result.status} ${result.body.error ?? 'no bearer token'}`);
      res.writeHead(result.status, {
        ...result.headers,
        'content-type': 'application/json',
        // Browser clients must be able to read the challenge to find the metadata.
        'access-control-expose-headers': 'WWW-Authenticate',
      });
      res.end(JSON.stringify(result.body));
      return false;
    },
  };
}
