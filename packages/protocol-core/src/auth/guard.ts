/**
 * The auth guard: one object the HTTP runner asks, per request, whether the bearer token is good for
 * this resource and carries the scopes the request needs. It also holds what the runner serves
 * unauthenticated: the protected resource metadata and its paths. See `index.ts` for the wiring.
 */

import type { Resolver } from '@mcpkit/net';
import type { AuthInfo } from '@modelcontextprotocol/server';
import type { Logger } from '../logger.js';
import { silentLogger } from '../logger.js';
import { createDiscovery } from './discovery.js';
import { AuthServerError, createAuthHttp } from './http.js';
import { createIntrospector } from './introspection.js';
import { createJwtVerifier, type JwtVerifier } from './jwt.js';
import { bearerChallenge, metadataPaths, metadataUrl, type ProtectedResourceMetadata, protectedResourceMetadata } from './metadata.js';
import type { AuthConfig } from './options.js';
import { createScopePolicy, type ScopeDeclaration } from './scopes.js';
import { InvalidTokenError, type VerifiedToken } from './token.js';

export interface AuthGuardOptions {
  /** The scopes the server's tools need (renamed by the config's scope map). */
  scopes?: ScopeDeclaration;
  /** `resource_name` of the metadata: a human-readable name of the server. */
  resourceName?: string;
  logger?: Logger;
  /** Name resolution for the authorization server's hosts (tests). Default: the system resolver. */
  resolve?: Resolver;
  /** The clock, in ms since the epoch (tests). Default `Date.now`. */
  now?: () => number;
  /** Least time between two JWKS fetches caused by unknown `kid`s. Default 30 s. */
  jwksCooldownMs?: number;
  /** How long an active introspection answer is reused. Default 5 s (at most 10 s). */
  introspectionCacheMs?: number;
  /** Deadline of one request to the authorization server. Default 5 s. */
  timeoutMs?: number;
}

/**
 * An OAuth error response body (RFC 6750 §3.1); never contains the token. A request that carried no
 * bearer credentials gets no `error` code (§3.1: it is not an invalid token), only the description.
 * @public (named by the declarations of what returns it)
 */
export interface AuthErrorBody {
  error?: 'invalid_token' | 'insufficient_scope' | 'temporarily_unavailable';
  error_description: string;
}

export type AuthCheck =
  | { ok: true; authInfo: AuthInfo }
  | { ok: false; status: 401 | 403 | 503; headers: Record<string, string>; body: AuthErrorBody };

/** Request headers as Node gives them (`req.headers`) or as a fetch `Headers`. */
type HeaderSource = { get(name: string): string | null } | Readonly<Record<string, string | string[] | undefined>>;

export interface AuthGuard {
  /** The resource identifier (`--oauth-audience`). */
  readonly resource: string;
  /** Paths (on the resource's origin) to answer `GET` with `metadataDocument()`, without auth. */
  readonly metadataPaths: readonly string[];
  /** The absolute URL of the metadata document, as challenges name it. */
  readonly metadataUrl: string;
  metadataDocument(): ProtectedResourceMetadata;
  /**
   * `authenticate`, then `authorize`: the `Authorization: Bearer` token of a request and the scopes
   * `parsedBody` needs. Never throws; never puts the token in a refusal or a log.
   */
  check(headers: HeaderSource, parsedBody?: unknown): Promise<AuthCheck>;
  /**
   * The first half of `check`, from the headers alone: no, a malformed or a refused token is answered
   * without the body (the runner calls it before reading one, so an unauthenticated request costs no
   * body read or parse). Never throws.
   */
  authenticate(headers: HeaderSource): Promise<AuthCheck>;
  /** The second half of `check`: 403 `insufficient_scope` when `parsedBody` needs a scope `authInfo` lacks. */
  authorize(authInfo: AuthInfo, parsedBody: unknown): AuthCheck;
  /** Fetches the authorization server's metadata now, so a misconfiguration shows at start. */
  ready(): Promise<void>;
  /**
   * For readiness probes: resolves when the issuer's metadata and (for JWT tokens) its key set are at hand, else
   * rejects saying which is missing. Both are cached, so this costs a fetch only when they are not.
   */
  available(): Promise<void>;
  close(): Promise<void>;
}

const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

function header(headers: HeaderSource, name: string): string | undefined {
  if (typeof (headers as { get?: unknown }).get === 'function')
    return (headers as { get(n: string): string | null }).get(name) ?? undefined;
  const value = (headers as Readonly<Record<string, string | string[] | undefined>>)[name];
  return Array.isArray(value) ? value[0] : value;
}

export function createAuthGuard(config: AuthConfig, options: AuthGuardOptions = {}): AuthGuard {
  const logger = options.logger ?? silentLogger;
  const now = options.now ?? Date.now;
  const policy = createScopePolicy(options.scopes ?? {}, config.scopeMap);
  const http = createAuthHttp(config, {
    ...(options.resolve ? { resolve: options.resolve } : {}),
    ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
  });
  const discovery = createDiscovery(config.issuer, http, now);
  const verifier = config.introspect
    ? createIntrospector(config, {
        discovery,
        http,
        now,
        ...(options.introspectionCacheMs !== undefined ? { cacheMs: options.introspectionCacheMs } : {}),
      })
    : createJwtVerifier(config, {
        discovery,
        http,
        now,
        ...(options.jwksCooldownMs !== undefined ? { jwksCooldownMs: options.jwksCooldownMs } : {}),
      });
  const resourceMetadata = metadataUrl(config.audience);
  const resource = new URL(config.audience);

  const refuse = (status: 401 | 403 | 503, challenge: string | undefined, body: AuthErrorBody): AuthCheck => ({
    ok: false,
    status,
    headers: challenge ? { 'www-authenticate': challenge } : { 'retry-after': '5' },
    body,
  });

  async function verify(token: string): Promise<VerifiedToken | AuthCheck> {
    try {
      return await verifier.verify(token);
    } catch (error) {
      if (error instanceof InvalidTokenError) {
        logger.debug(`bearer token refused: ${error.description}`);
        return refuse(401, bearerChallenge({ resourceMetadata, error: 'invalid_token', description: error.description }), {
          error: 'invalid_token',
          error_description: error.description,
        });
      }
      const message =
        error instanceof AuthServerError ? error.message : `unexpected failure: ${error instanceof Error ? error.message : String(error)}`;
      logger.warn(`cannot check bearer tokens: ${message}`);
      return refuse(503, undefined, {
        error: 'temporarily_unavailable',
        error_description: 'the authorization server could not be asked about the token; try again shortly',
      });
    }
  }

  /** The token of `headers`, verified; `hint` is what the no-token challenge names as the scope needed. */
  async function authenticate(headers: HeaderSource, hint: readonly string[]): Promise<AuthCheck> {
    const raw = header(headers, 'authorization');
    if (raw === undefined || !/^Bearer(\s|$)/i.test(raw)) {
      // No credentials: the challenge and the body name no error (RFC 6750 §3.1), only where to get a token.
      return refuse(401, bearerChallenge({ resourceMetadata, scopes: hint }), {
        error_description: 'this server needs an OAuth bearer token; its metadata names the authorization server',
      });
    }
    const token = BEARER.exec(raw)?.[1];
    if (!token) {
      return refuse(401, bearerChallenge({ resourceMetadata, error: 'invalid_token', description: 'the bearer token is malformed' }), {
        error: 'invalid_token',
        error_description: 'the bearer token is malformed',
      });
    }
    const verified = await verify(token);
    if ('ok' in verified) return verified;
    return {
      ok: true,
      authInfo: {
        token,
        clientId: verified.clientId,
        scopes: verified.scopes,
        ...(verified.expiresAt !== undefined ? { expiresAt: verified.expiresAt } : {}),
        resource,
        resourceMetadataUrl: resourceMetadata,
        extra: { subject: verified.subject, issuer: config.issuer },
      },
    };
  }

  function authorize(authInfo: AuthInfo, parsedBody: unknown): AuthCheck {
    const required = policy.required(parsedBody);
    const missing = policy.missing(parsedBody, authInfo.scopes);
    if (missing.length === 0) return { ok: true, authInfo };
    const description = `this call needs the scope${missing.length > 1 ? 's' : ''} ${missing.join(' ')}`;
    logger.debug(`request refused: ${description}`);
    return refuse(403, bearerChallenge({ resourceMetadata, error: 'insufficient_scope', description, scopes: required }), {
      error: 'insufficient_scope',
      error_description: description,
    });
  }

  return {
    resource: config.audience,
    metadataPaths: Object.freeze(metadataPaths(config.audience)),
    metadataUrl: resourceMetadata,
    metadataDocument: () =>
      protectedResourceMetadata({
        resource: config.audience,
        issuer: config.issuer,
        scopes: policy.supported,
        ...(options.resourceName ? { resourceName: options.resourceName } : {}),
      }),

    async check(headers, parsedBody) {
      const authenticated = await authenticate(headers, policy.required(parsedBody));
      return authenticated.ok ? authorize(authenticated.authInfo, parsedBody) : authenticated;
    },
    authenticate: (headers) => authenticate(headers, []),
    authorize,

    async ready() {
      await discovery.metadata();
    },
    async available() {
      await discovery.metadata();
      if (!config.introspect) await (verifier as JwtVerifier).ready();
    },
    close: () => http.close(),
  };
}
