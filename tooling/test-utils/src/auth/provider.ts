/// <reference path="./oidcProvider.d.ts" />
/**
 * A real OAuth 2.1 / OpenID Connect authorization server for tests: `oidc-provider` on 127.0.0.1:0,
 * with resource indicators (RFC 8707: access tokens are minted for one resource, as JWTs or opaque
 * tokens per resource), client credentials, introspection (RFC 7662), revocation (RFC 7009) and the
 * provider's development login/consent pages, which `authorizationCodeToken` drives over HTTP with a
 * cookie jar (authorization code + PKCE, as an MCP client does).
 *
 *   await using as = await startAuthServer({ resources: { [resource]: { scopes: ['memory:read'] } } });
 *   const token = await as.clientCredentialsToken({ resource, scope: 'memory:read' });
 *
 * Reusable for end-to-end runner tests: nothing here knows about the guard.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import Provider, { errors } from 'oidc-provider';

export interface TestResource {
  /** Scopes the resource server accepts; a token carries the requested ones among them. */
  scopes: readonly string[];
  /** `jwt` (RFC 9068, default) or `opaque` (introspection only). */
  format?: 'jwt' | 'opaque';
  /** Access token lifetime in seconds (default 3600). */
  ttlSeconds?: number;
}

export interface TestClient {
  id: string;
  secret: string;
}

export interface AuthServerOptions {
  /** Resource indicator (the MCP endpoint's canonical URL) → what the server issues for it. */
  resources: Record<string, TestResource>;
  /** Private signing keys to use (the first one signs); default one fresh RS256 key. */
  keys?: readonly JWK[];
  /** Open dynamic client registration (RFC 7591), as MCP clients use it. Default off. */
  registration?: boolean;
  /** Issue a refresh token to every client allowed the `refresh_token` grant (no `offline_access` needed). Default off. */
  refreshTokens?: boolean;
}

export interface TestAuthServer extends AsyncDisposable {
  /** `http://127.0.0.1:<port>`, exactly as the discovery document names it. */
  issuer: string;
  /** The private signing keys in use, the signing one first. */
  keys(): readonly JWK[];
  /** Confidential client with the client credentials grant (client_secret_basic). */
  service: TestClient;
  /** Confidential client of the resource server itself, for introspection. */
  resourceServer: TestClient;
  /** Public client (no secret) with the authorization code grant and PKCE. */
  publicClient: { id: string; redirectUri: string };
  /** An access token from the client credentials grant, for `resource` (none: a token without an audience). */
  clientCredentialsToken(params: { resource?: string; scope: string; client?: TestClient }): Promise<string>;
  /** How many requests the provider has had for `pathname` (e.g. `/token/introspection`). */
  requestCount(pathname: string): number;
  /** The most requests for `pathname` the provider has had in progress at once. */
  peakConcurrency(pathname: string): number;
  /** Requests for `pathname` in progress now (received, not yet answered). */
  inProgress(pathname: string): number;
  /** Holds every request for `pathname` unanswered (in progress) until the returned release is called. */
  hold(pathname: string): () => void;
  /**
   * The whole authorization code + PKCE flow of the public client: authorization request, the
   * provider's login page (as `login`), its consent page, the redirect with the code, the token request.
   */
  authorizationCodeToken(params: { resource: string; scope: string; login: string }): Promise<string>;
  /**
   * The browser's part of an authorization request another client built (the v2 SDK client's OAuth support):
   * follows `authorizationUrl` through the login page (as `login`) and the consent page; returns the parameters
   * of the redirect to the client's redirect URI (`code`, `state`, `iss`).
   */
  authorize(authorizationUrl: string, login: string): Promise<URLSearchParams>;
  /** Revokes a token (RFC 7009) as `client` (default: the service client). */
  revoke(token: string, client?: TestClient): Promise<void>;
  /** Starts signing with a fresh key (new `kid`); the old public key stays published. Returns the new kid. */
  rotateKeys(): Promise<string>;
  close(): Promise<void>;
}

/** A fresh RS256 private signing key, as a JWK with a `kid`. */
export async function generateSigningKey(): Promise<JWK> {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  return { ...(await exportJWK(privateKey)), kid: randomUUID(), alg: 'RS256', use: 'sig' };
}

function basic(client: TestClient): string {
  return `Basic ${Buffer.from(`${encodeURIComponent(client.id)}:${encodeURIComponent(client.secret)}`).toString('base64')}`;
}

async function postForm(url: string, form: Record<string, string>, authorization?: string): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(authorization ? { authorization } : {}) },
    body: new URLSearchParams(form).toString(),
  });
}

async function accessToken(response: Response): Promise<string> {
  const body = (await response.json()) as { access_token?: string; error?: string; error_description?: string };
  if (!response.ok || !body.access_token) throw new Error(`token request failed: ${response.status} ${JSON.stringify(body)}`);
  return body.access_token;
}

export async function startAuthServer(options: AuthServerOptions): Promise<TestAuthServer> {
  const service: TestClient = { id: 'mcp-service', secret: randomBytes(16).toString('hex') };
  const resourceServer: TestClient = { id: 'mcp-resource-server', secret: randomBytes(16).toString('hex') };
  const publicClient = { id: 'mcp-public', redirectUri: 'http://127.0.0.1/callback' };
  const cookieKeys = [randomBytes(16).toString('hex')];
  let keys: JWK[] = options.keys ? [...options.keys] : [await generateSigningKey()];

  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const build = (): ((req: IncomingMessage, res: ServerResponse) => void) => {
    const provider = new Provider(issuer, {
      clients: [
        {
          client_id: service.id,
          client_secret: service.secret,
          grant_types: ['client_credentials'],
          response_types: [],
          redirect_uris: [],
          token_endpoint_auth_method: 'client_secret_basic',
        },
        {
          client_id: resourceServer.id,
          client_secret: resourceServer.secret,
          grant_types: [],
          response_types: [],
          redirect_uris: [],
          token_endpoint_auth_method: 'client_secret_basic',
        },
        {
          client_id: publicClient.id,
          application_type: 'native',
          grant_types: ['authorization_code'],
          response_types: ['code'],
          redirect_uris: [publicClient.redirectUri],
          token_endpoint_auth_method: 'none',
        },
      ],
      jwks: { keys: keys as Record<string, unknown>[] },
      cookies: { keys: cookieKeys },
      scopes: ['openid', ...new Set(Object.values(options.resources).flatMap((r) => r.scopes))],
      pkce: { required: () => true },
      // Explicit lifetimes (the provider logs a notice for each default it falls back to).
      // An access token lives as long as its resource says (`ttlSeconds`): a number here would override that.
      ttl: {
        AccessToken: (_ctx: unknown, token: { resourceServer?: { accessTokenTTL?: number } }) =>
          token.resourceServer?.accessTokenTTL ?? 3600,
        ClientCredentials: (_ctx: unknown, token: { resourceServer?: { accessTokenTTL?: number } }) =>
          token.resourceServer?.accessTokenTTL ?? 3600,
        Grant: 3600,
        Interaction: 600,
        Session: 3600,
        AuthorizationCode: 60,
        RefreshToken: 86400,
      },
      findAccount: async (_ctx, id) => ({ accountId: id, claims: async () => ({ sub: id }) }),
      ...(options.refreshTokens
        ? {
            issueRefreshToken: async (_ctx: unknown, client: { grantTypeAllowed(type: string): boolean }) =>
              client.grantTypeAllowed('refresh_token'),
          }
        : {}),
      features: {
        ...(options.registration ? { registration: { enabled: true } } : {}),
        devInteractions: { enabled: true },
        clientCredentials: { enabled: true },
        // Only the resource server introspects; a client revokes only its own tokens.
        introspection: {
          enabled: true,
          allowedPolicy: async (_ctx: unknown, client: { clientId: string }) => client.clientId === resourceServer.id,
        },
        revocation: {
          enabled: true,
          allowedPolicy: async (_ctx: unknown, client: { clientId: string }, token: { clientId: string }) =>
            client.clientId === token.clientId,
        },
        resourceIndicators: {
          enabled: true,
          useGrantedResource: async () => true,
          defaultResource: async (_ctx: unknown, _client: unknown, oneOf?: string) => oneOf,
          getResourceServerInfo: async (_ctx: unknown, indicator: string) => {
            const resource = options.resources[indicator];
            if (!resource) throw new errors.InvalidTarget();
            return {
              scope: resource.scopes.join(' '),
              audience: indicator,
              accessTokenTTL: resource.ttlSeconds ?? 3600,
              accessTokenFormat: resource.format ?? 'jwt',
              jwt: { sign: { alg: 'RS256' } },
            };
          },
        },
      },
    });
    return provider.callback();
  };

  let handler = build();
  const counts = new Map<string, { total: number; now: number; peak: number }>();
  const held = new Map<string, Array<() => void>>();
  server.on('request', (req, res) => {
    const pathname = new URL(req.url ?? '/', issuer).pathname;
    const count = counts.get(pathname) ?? { total: 0, now: 0, peak: 0 };
    counts.set(pathname, count);
    count.total++;
    count.now++;
    count.peak = Math.max(count.peak, count.now);
    res.once('close', () => count.now--);
    const queue = held.get(pathname);
    if (queue) queue.push(() => handler(req, res));
    else handler(req, res);
  });

  function hold(pathname: string): () => void {
    const queue: Array<() => void> = [];
    held.set(pathname, queue);
    return () => {
      held.delete(pathname);
      for (const resume of queue.splice(0)) resume();
    };
  }

  const tokenUrl = `${issuer}/token`;

  async function clientCredentialsToken({ resource, scope, client = service }: { resource?: string; scope: string; client?: TestClient }) {
    const form = { grant_type: 'client_credentials', scope, ...(resource !== undefined ? { resource } : {}) };
    return accessToken(await postForm(tokenUrl, form, basic(client)));
  }

  /**
   * What a browser does with an authorization URL: follows redirects, fills in the login and consent pages; returns
   * the parameters of the redirect to the request's `redirect_uri` (the public client's when it names none).
   */
  async function browse(authorizationUrl: string, login: string, state?: string): Promise<URLSearchParams> {
    const redirectUri = new URL(authorizationUrl).searchParams.get('redirect_uri') ?? publicClient.redirectUri;
    const jar = new Map<string, string>();
    let url = authorizationUrl;
    let form: string | undefined;
    let callback: URLSearchParams | undefined;
    for (let step = 0; step < 12 && callback === undefined; step++) {
      const response = await fetch(url, {
        method: form === undefined ? 'GET' : 'POST',
        redirect: 'manual',
        headers: {
          cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; '),
          ...(form === undefined ? {} : { 'content-type': 'application/x-www-form-urlencoded' }),
        },
        ...(form === undefined ? {} : { body: form }),
      });
      for (const line of response.headers.getSetCookie()) {
        const [pair = ''] = line.split(';');
        const eq = pair.indexOf('=');
        if (eq > 0) jar.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
      }
      if (response.status >= 300 && response.status < 400) {
        await response.body?.cancel();
        const next = new URL(response.headers.get('location') ?? '', url);
        form = undefined;
        if (next.href.startsWith(redirectUri)) {
          if (state !== undefined && next.searchParams.get('state') !== state)
            throw new Error('state mismatch in the authorization response');
          const error = next.searchParams.get('error');
          if (error) throw new Error(`authorization failed: ${error} ${next.searchParams.get('error_description') ?? ''}`);
          if (!next.searchParams.get('code')) throw new Error('the authorization response has no code');
          callback = next.searchParams;
        } else {
          url = next.href;
        }
        continue;
      }
      const html = await response.text();
      if (response.status !== 200) throw new Error(`unexpected ${response.status} during the authorization flow: ${html.slice(0, 300)}`);
      // The provider's development login or consent page: one form, fill it in and submit it.
      const action = /<form[^>]*\saction="([^"]+)"/.exec(html)?.[1];
      if (!action) throw new Error(`no form on the interaction page: ${html.slice(0, 300)}`);
      const fields = new URLSearchParams();
      for (const input of html.matchAll(/<input\b[^>]*>/g)) {
        const name = /\sname="([^"]+)"/.exec(input[0])?.[1];
        if (!name) continue;
        const value = /\svalue="([^"]*)"/.exec(input[0])?.[1];
        fields.set(name, name === 'login' ? login : name === 'password' ? 'any-password' : (value ?? ''));
      }
      url = new URL(action.replace(/&amp;/g, '&'), url).href;
      form = fields.toString();
    }
    if (callback === undefined) throw new Error('the authorization flow did not end at the redirect URI');
    return callback;
  }

  async function authorizationCodeToken({ resource, scope, login }: { resource: string; scope: string; login: string }) {
    const verifier = randomBytes(32).toString('base64url');
    const state = randomBytes(8).toString('base64url');
    const authorize = new URL('/auth', issuer);
    for (const [k, v] of Object.entries({
      client_id: publicClient.id,
      response_type: 'code',
      redirect_uri: publicClient.redirectUri,
      scope,
      resource,
      state,
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
    }))
      authorize.searchParams.set(k, v);

    const code = (await browse(authorize.href, login, state)).get('code') as string;
    return accessToken(
      await postForm(tokenUrl, {
        grant_type: 'authorization_code',
        code,
        redirect_uri: publicClient.redirectUri,
        code_verifier: verifier,
        client_id: publicClient.id,
        resource,
      }),
    );
  }

  async function revoke(token: string, client: TestClient = service) {
    const response = await postForm(`${issuer}/token/revocation`, { token, token_type_hint: 'access_token' }, basic(client));
    if (!response.ok) throw new Error(`revocation failed: ${response.status} ${await response.text()}`);
  }

  async function rotateKeys() {
    const next = await generateSigningKey();
    keys = [next, ...keys];
    handler = build();
    return next.kid as string;
  }

  async function close() {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  return {
    issuer,
    keys: () => keys,
    service,
    resourceServer,
    publicClient,
    clientCredentialsToken,
    requestCount: (pathname) => counts.get(pathname)?.total ?? 0,
    peakConcurrency: (pathname) => counts.get(pathname)?.peak ?? 0,
    inProgress: (pathname) => counts.get(pathname)?.now ?? 0,
    hold,
    authorizationCodeToken,
    authorize: browse,
    revoke,
    rotateKeys,
    close,
    [Symbol.asyncDispose]: close,
  };
}
