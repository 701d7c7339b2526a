/**
 * OAuth 2.1 resource server for the HTTP runner (MCP authorization, spec 2025-11-25 and 2026-07-28):
 * protected resource metadata (RFC 9728), JWT access tokens (RFC 9068) checked against the issuer's
 * JWKS or opaque tokens by introspection (RFC 7662), audience binding (RFC 8707), scopes per tool, per
 * resource read and per prompt with `insufficient_scope` step-up.
 *
 * The seam, for the runner:
 *
 *   // 1. Options: spread `authOptions` into the bin's option spec, then
 *   const auth = authConfigFrom(values, env);            // AuthConfig | undefined (OAuth off); ConfigError → exit 2
 *   //    `--auth-token` together with `--oauth-issuer` should be refused by the runner.
 *
 *   // 2. Once, at start (the server declares its tools' scopes, e.g. { tools: { read_graph: 'memory:read' } }):
 *   const guard = auth && createAuthGuard(auth, { scopes, resourceName, logger });
 *   await guard?.ready().catch((e) => logger.warn(e.message));   // optional: surfaces a bad issuer early
 *
 *   // 3. Per request, before the MCP transport:
 *   //    GET one of guard.metadataPaths → 200 application/json guard.metadataDocument(), no auth,
 *   //      `access-control-allow-origin: *` (browser clients read it cross-origin).
 *   //    On the MCP endpoint (all methods), after the Host/Origin checks and BEFORE reading the body
 *   //    (an unauthenticated request must cost no body read or parse; close the connection on a refusal):
 *   const r = await guard.authenticate(req.headers);
 *   if (!r.ok) { res.writeHead(r.status, { ...r.headers, 'content-type': 'application/json', connection: 'close' }).end(JSON.stringify(r.body)); return; }
 *   //    then read and parse the body, and check the scopes it needs (403 the same way):
 *   const s = guard.authorize(r.authInfo, parsedBody);
 *   req.auth = r.authInfo;   // the SDK's AuthInfo: handlers see it as `extra.authInfo`;
 *                            // the user is `authInfo.extra.subject` (the token's `sub`).
 *   //    (`guard.check(headers, parsedBody)` does both at once, for a caller that has the body already.)
 *
 *   // 4. At shutdown: await guard.close();
 *
 * `check` never throws and never puts the token in a response or a log. Its statuses: 401 (no,
 * malformed or refused token; `WWW-Authenticate: Bearer resource_metadata="…"`, with
 * `error="invalid_token"` only when a token was sent: without one, neither the challenge nor the body
 * names an error, RFC 6750 §3.1), 403 (`error="insufficient_scope", scope="…"`), 503
 * (the authorization server could not be asked: the client should retry, not re-authorize).
 *
 * The resource identifier (`--oauth-audience`) is the public URL of the MCP endpoint (behind a
 * reverse proxy, the proxy's URL); `metadataPaths` are derived from its path, so the runner serves
 * them on whatever path the proxy forwards those public paths to.
 */
export { type AuthServerMetadata, createDiscovery, type Discovery, metadataUrls } from './discovery.js';
export {
  type AuthCheck,
  type AuthErrorBody,
  type AuthGuard,
  type AuthGuardOptions,
  createAuthGuard,
  type HeaderSource,
} from './guard.js';
export { AuthServerError } from './http.js';
export {
  bearerChallenge,
  type ChallengeParams,
  metadataPaths,
  metadataUrl,
  type ProtectedResourceMetadata,
  protectedResourceMetadata,
} from './metadata.js';
export { type AuthConfig, type AuthOptionValues, authConfigFrom, authOptions, DEFAULT_ALGORITHMS, parseAuthConfig } from './options.js';
export { createScopePolicy, type ScopeDeclaration, type ScopePolicy } from './scopes.js';
export { InvalidTokenError, type VerifiedToken } from './token.js';
