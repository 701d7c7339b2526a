/**
 * OAuth in front of the MCP endpoint (`--oauth-issuer`): the protected resource metadata (RFC 9728) served
 * without auth at its well-known paths, and every MCP request's bearer token checked by the auth guard
 * (`../auth/guard.ts`) before any transport or the SDK sees it, in two steps: `authenticate` from the headers
 * alone, before the body is read (no, a malformed or a refused token costs no body read or parse), then,
 * once the body is read, `authorize` (the scopes it needs). A request that passes carries the token's
 * `AuthInfo` as `req.auth`, which the SDK hands every handler as `extra.http?.authInfo` (the user: its
 * `extra.subject`).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AuthInfo } from '@modelcontextprotocol/server';
import type { AuthCheck, AuthGuard } from '../../auth/guard.js';
import type { Logger } from '../../logger.js';
import { unreadBody } from './body.js';

export interface AuthGate {
  /** Answers a GET of the metadata document; `false` when `url` is not one of its paths. */
  serveMetadata(req: IncomingMessage, res: ServerResponse, url: URL): boolean;
  /**
   * Checks the request's token from its headers, before its body is read; answers 401/503 itself (closing the
   * connection when a body was announced, so it is never read) and returns `undefined`.
   */
  authenticate(req: IncomingMessage, res: ServerResponse): Promise<AuthInfo | undefined>;
  /** The scopes the read body needs (`tools/call`, resource reads…); answers 403 itself and returns `false`. */
  authorize(req: IncomingMessage, res: ServerResponse, authInfo: AuthInfo, body: unknown): boolean;
}

export function createAuthGate(guard: AuthGuard, logger: Logger): AuthGate {
  const paths = new Set(guard.metadataPaths);

  function answer(req: IncomingMessage, res: ServerResponse, result: AuthCheck): AuthInfo | undefined {
    if (result.ok) {
      (req as IncomingMessage & { auth?: AuthInfo }).auth = result.authInfo;
      return result.authInfo;
    }
    logger.debug(`refused ${req.method} ${req.url}: ${result.status} ${result.body.error ?? 'no bearer token'}`);
    res.writeHead(result.status, {
      ...result.headers,
      'content-type': 'application/json',
      // Browser clients must be able to read the challenge to find the metadata.
      'access-control-expose-headers': 'WWW-Authenticate',
      // A body not read yet is not read at all: the connection ends with the answer.
      ...(unreadBody(req) ? { connection: 'close' } : {}),
    });
    res.end(JSON.stringify(result.body));
    return undefined;
  }

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

    async authenticate(req, res) {
      return answer(req, res, await guard.authenticate(req.headers));
    },

    authorize(req, res, authInfo, body) {
      return answer(req, res, guard.authorize(authInfo, body)) !== undefined;
    },
  };
}
