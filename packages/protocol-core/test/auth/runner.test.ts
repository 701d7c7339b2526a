/**
 * OAuth end to end through the HTTP runner: `serveHttp` with an auth guard in front of a small app that declares
 * its tools' scopes, oidc-provider on loopback as the authorization server, and real clients (the v2 client in
 * both eras, the v1 client, raw HTTP where a client would hide the status). Nothing is mocked: tokens are minted
 * by the provider, checked against its JWKS or by introspection.
 */

import { startAuthServer, type TestAuthServer } from '@mcpkit/test-utils/auth';
import {
  type AuthProvider,
  type OAuthClientProvider,
  StreamableHTTPClientTransport,
  UnauthorizedError,
} from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../src/logger.ts';
import { newV2Client } from '../../src/testing/index.ts';
import { INIT, INITIALIZED, raw, sessionHeaders } from '../fixtures/rawHttp.ts';
import { bearer, type Protected, serveProtected } from './protectedApp.ts';

const whoamiText = (result: unknown) =>
  JSON.parse((result as { content: { text: string }[] }).content[0]!.text) as { subject: string | null; scopes: string[] };

const OTHER = 'http://127.0.0.1:1/other-mcp';
/**
 * The resource identifiers the provider mints tokens for. It knows its scopes from those present at start (OTHER's);
 * it looks a resource up on every request, so the servers' entries, added once their ports are known, are honoured.
 */
const resources: Record<string, { scopes: string[]; format?: 'jwt' | 'opaque' }> = { [OTHER]: { scopes: ['test:read', 'test:write'] } };
let as: TestAuthServer;
let jwtServer: Protected;
let opaqueServer: Protected;

beforeAll(async () => {
  as = await startAuthServer({ resources });
  jwtServer = await serveProtected(as);
  resources[jwtServer.resource] = { scopes: ['test:read', 'test:write'] };
  opaqueServer = await serveProtected(as, { introspect: true });
  resources[opaqueServer.resource] = { scopes: ['test:read', 'test:write'], format: 'opaque' };
});

afterAll(async () => {
  await jwtServer?.http[Symbol.asyncDispose]();
  await opaqueServer?.http[Symbol.asyncDispose]();
  await as?.close();
});

describe('protected resource metadata and the 401 challenge', () => {
  it('serves the metadata document at the well-known path of /mcp, without a token, readable cross-origin', async () => {
    const url = `${jwtServer.http.url}/.well-known/oauth-protected-resource/mcp`;
    const response = await fetch(url, { headers: { Origin: 'https://app.example.com' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(await response.json()).toMatchObject({
      resource: jwtServer.resource,
      authorization_servers: [as.issuer],
      scopes_supported: expect.arrayContaining(['test:read', 'test:write']),
    });
    const preflight = await fetch(url, {
      method: 'OPTIONS',
      headers: { Origin: 'https://app.example.com', 'Access-Control-Request-Method': 'GET' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('answers a request without a token 401 with WWW-Authenticate naming the metadata, before any session exists', async () => {
    const response = await raw(jwtServer.http.url, { body: INIT });
    expect(response.status).toBe(401);
    // RFC 6750 §3.1: no credentials is not an invalid token: no error code in the challenge or the body.
    expect(response.headers['www-authenticate']).toBe(
      `Bearer resource_metadata="${jwtServer.http.url}/.well-known/oauth-protected-resource/mcp"`,
    );
    expect(response.headers['access-control-expose-headers']).toBe('WWW-Authenticate');
    expect(JSON.parse(response.body)).toEqual({ error_description: expect.stringMatching(/needs an OAuth bearer token/) });
    // A tools/call without a token is answered before its body is read: the same challenge (the client asks for
    // the metadata's scopes_supported), the connection closed with it.
    const call = { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'note', arguments: { text: 'x' } } };
    const scoped = await raw(jwtServer.http.url, { body: call });
    expect(scoped.status).toBe(401);
    expect(scoped.headers['www-authenticate']).toBe(
      `Bearer resource_metadata="${jwtServer.http.url}/.well-known/oauth-protected-resource/mcp"`,
    );
    expect(scoped.headers.connection).toBe('close');
    expect(JSON.parse(scoped.body).error).toBeUndefined();
    expect(jwtServer.http.running.sessionCount()).toBe(0);
    // The v2 client without credentials cannot connect in either era.
    for (const mode of ['legacy', '2026-07-28'] as const) {
      const client = newV2Client({ mode });
      await expect(client.connect(new StreamableHTTPClientTransport(new URL(jwtServer.http.endpoint)))).rejects.toThrow();
    }
  });
});

describe('a valid token', () => {
  it('lets the v2 client list and call in the 2025 era (bearer in headers) and in 2026-07-28 (bearer from an auth provider); the handler sees the subject', async () => {
    const token = await as.authorizationCodeToken({ resource: jwtServer.resource, scope: 'test:read test:write', login: 'alice' });
    const legacy = newV2Client({ mode: 'legacy' });
    await legacy.connect(new StreamableHTTPClientTransport(new URL(jwtServer.http.endpoint), { requestInit: { headers: bearer(token) } }));
    const provider: AuthProvider = { token: async () => token };
    const modern = newV2Client({ mode: '2026-07-28' });
    await modern.connect(new StreamableHTTPClientTransport(new URL(jwtServer.http.endpoint), { authProvider: provider }));
    try {
      expect(legacy.getProtocolEra()).toBe('legacy');
      expect(modern.getProtocolEra()).toBe('modern');
      for (const client of [legacy, modern]) {
        expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(['note', 'whoami']);
        expect(whoamiText(await client.callTool({ name: 'whoami', arguments: {} }))).toEqual({
          subject: 'alice',
          scopes: expect.arrayContaining(['test:read', 'test:write']),
        });
        expect((await client.callTool({ name: 'note', arguments: { text: 'x' } })).content).toEqual([{ type: 'text', text: 'noted x' }]);
      }
    } finally {
      await Promise.allSettled([legacy.close(), modern.close()]);
    }
  });

  it('lets the v1 client list and call', async () => {
    const token = await as.authorizationCodeToken({ resource: jwtServer.resource, scope: 'test:read', login: 'carol' });
    const client = new V1Client({ name: 'v1', version: '0.0.0' });
    await client.connect(new V1Transport(new URL(jwtServer.http.endpoint), { requestInit: { headers: bearer(token) } }));
    try {
      expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(['note', 'whoami']);
      expect(whoamiText(await client.callTool({ name: 'whoami', arguments: {} })).subject).toBe('carol');
    } finally {
      await client.close();
    }
  });
});

describe('the access log', () => {
  it('one info line per request: method, tool, the token subject as principal, status, time; never the token', async () => {
    const lines: string[] = [];
    const logger = createLogger({ name: 'auth-e2e', level: 'info', write: (line) => void lines.push(line) });
    const logged = await serveProtected(as, { http: { logger } });
    resources[logged.resource] = { scopes: ['test:read', 'test:write'] };
    const token = await as.authorizationCodeToken({ resource: logged.resource, scope: 'test:read', login: 'frank' });
    const client = newV2Client({ mode: '2026-07-28' });
    await client.connect(new StreamableHTTPClientTransport(new URL(logged.http.endpoint), { requestInit: { headers: bearer(token) } }));
    try {
      await client.callTool({ name: 'whoami', arguments: {} });
      await vi.waitFor(() => expect(lines.some((l) => l.includes('tool=whoami'))).toBe(true));
      const refused = await raw(logged.http.url, { body: INIT });
      expect(refused.status).toBe(401);
      await vi.waitFor(() => expect(lines.some((l) => l.includes('status=401'))).toBe(true));
    } finally {
      await client.close();
      await logged.http[Symbol.asyncDispose]();
    }
    const access = lines.filter((l) => l.startsWith('[auth-e2e] info: access: '));
    expect(access.find((l) => l.includes('tool=whoami'))).toMatch(
      /^\[auth-e2e\] info: access: POST \/mcp method=tools\/call tool=whoami principal=frank status=200 time=\d+ms\n$/,
    );
    expect(access.find((l) => l.includes('status=401'))).toMatch(
      // Refused from the headers, before its body is read: the line names no method.
      /access: POST \/mcp principal=none status=401 time=\d+ms/,
    );
    expect(lines.join('')).not.toContain(token);
  });
});

describe('refused tokens', () => {
  it('a call without the tool scope gets 403 insufficient_scope naming the scope; tools/list still shows every tool', async () => {
    const token = await as.authorizationCodeToken({ resource: jwtServer.resource, scope: 'test:read', login: 'dave' });
    const client = newV2Client({ mode: '2026-07-28' });
    await client.connect(new StreamableHTTPClientTransport(new URL(jwtServer.http.endpoint), { requestInit: { headers: bearer(token) } }));
    try {
      expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(['note', 'whoami']);
      await expect(client.callTool({ name: 'note', arguments: { text: 'x' } })).rejects.toThrow();
    } finally {
      await client.close();
    }
    // What the client was told, on the wire: a 2025 session's tools/call.
    const init = await raw(jwtServer.http.url, { headers: bearer(token), body: INIT });
    const sid = String(init.headers['mcp-session-id']);
    await raw(jwtServer.http.url, { headers: { ...bearer(token), ...sessionHeaders(sid) }, body: INITIALIZED });
    const call = { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'note', arguments: { text: 'x' } } };
    const refused = await raw(jwtServer.http.url, { headers: { ...bearer(token), ...sessionHeaders(sid) }, body: call });
    expect(refused.status).toBe(403);
    expect(String(refused.headers['www-authenticate'])).toMatch(/error="insufficient_scope"/);
    expect(String(refused.headers['www-authenticate'])).toMatch(/scope="test:write"/);
    expect(JSON.parse(refused.body)).toMatchObject({ error: 'insufficient_scope' });
    const allowed = await raw(jwtServer.http.url, {
      headers: { ...bearer(token), ...sessionHeaders(sid) },
      body: { ...call, params: { name: 'whoami', arguments: {} } },
    });
    expect(allowed.status).toBe(200);
  });

  it('refuses an expired token and a token minted for another resource (401 invalid_token)', async () => {
    const other = await as.clientCredentialsToken({ resource: OTHER, scope: 'test:read' });
    const wrongAudience = await raw(jwtServer.http.url, { headers: bearer(other), body: INIT });
    expect(wrongAudience.status).toBe(401);
    expect(String(wrongAudience.headers['www-authenticate'])).toMatch(/error="invalid_token"/);

    const token = await as.clientCredentialsToken({ resource: jwtServer.resource, scope: 'test:read' });
    expect((await raw(jwtServer.http.url, { headers: bearer(token), body: INIT })).status).toBe(200);
    jwtServer.clock.offsetMs = 2 * 3600_000; // two hours on: the one-hour token has expired
    try {
      const expired = await raw(jwtServer.http.url, { headers: bearer(token), body: INIT });
      expect(expired.status).toBe(401);
      expect(String(expired.headers['www-authenticate'])).toMatch(
        new RegExp(
          `^Bearer resource_metadata="${jwtServer.http.url}/\\.well-known/oauth-protected-resource/mcp", error="invalid_token", error_description="[^"]*expired`,
        ),
      );
      expect(JSON.parse(expired.body)).toMatchObject({ error: 'invalid_token', error_description: expect.stringMatching(/expired/) });
    } finally {
      jwtServer.clock.offsetMs = 0;
    }
  });

  it('with introspection, a revoked opaque token stops working at once', async () => {
    const token = await as.clientCredentialsToken({ resource: opaqueServer.resource, scope: 'test:read' });
    expect(token.split('.')).toHaveLength(1); // opaque, not a JWT
    const client = newV2Client({ mode: '2026-07-28' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(opaqueServer.http.endpoint), { requestInit: { headers: bearer(token) } }),
    );
    try {
      expect((await client.callTool({ name: 'whoami', arguments: {} })).isError).toBeFalsy();
      await as.revoke(token);
      await expect(client.callTool({ name: 'whoami', arguments: {} })).rejects.toThrow();
    } finally {
      await client.close();
    }
    expect((await raw(opaqueServer.http.url, { headers: bearer(token), body: INIT })).status).toBe(401);
  });
});

describe('sessions belong to their user', () => {
  it("a second user's token cannot use the first user's 2025 session id (404), the first user still can", async () => {
    const alice = await as.authorizationCodeToken({ resource: jwtServer.resource, scope: 'test:read', login: 'alice' });
    const bob = await as.authorizationCodeToken({ resource: jwtServer.resource, scope: 'test:read', login: 'bob' });
    const init = await raw(jwtServer.http.url, { headers: bearer(alice), body: INIT });
    const sid = String(init.headers['mcp-session-id']);
    expect((await raw(jwtServer.http.url, { headers: { ...bearer(alice), ...sessionHeaders(sid) }, body: INITIALIZED })).status).toBe(202);
    const call = { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'whoami', arguments: {} } };
    const stolen = await raw(jwtServer.http.url, { headers: { ...bearer(bob), ...sessionHeaders(sid) }, body: call });
    expect(stolen.status).toBe(404);
    expect((await raw(jwtServer.http.url, { method: 'DELETE', headers: { ...bearer(bob), ...sessionHeaders(sid) } })).status).toBe(404);
    const own = await raw(jwtServer.http.url, { headers: { ...bearer(alice), ...sessionHeaders(sid) }, body: call });
    expect(own.status).toBe(200);
    expect(own.body).toContain('\\"subject\\":\\"alice\\"');
  });
});

/** An in-memory OAuth client of the provider's public client (pre-registered, PKCE), as a host app implements one. */
function publicClientProvider(as: TestAuthServer) {
  const state: {
    authorizationUrl?: URL;
    verifier?: string;
    tokens?: Awaited<ReturnType<OAuthClientProvider['tokens']>>;
    discovery?: Parameters<NonNullable<OAuthClientProvider['saveDiscoveryState']>>[0];
  } = {};
  const provider: OAuthClientProvider = {
    get redirectUrl() {
      return as.publicClient.redirectUri;
    },
    get clientMetadata() {
      return {
        redirect_uris: [as.publicClient.redirectUri],
        client_name: 'mcpkit e2e',
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      };
    },
    clientInformation: () => ({ client_id: as.publicClient.id }),
    tokens: () => state.tokens,
    saveTokens: (tokens) => {
      state.tokens = tokens;
    },
    redirectToAuthorization: (url) => {
      state.authorizationUrl = url;
    },
    saveCodeVerifier: (verifier) => {
      state.verifier = verifier;
    },
    codeVerifier: () => {
      if (!state.verifier) throw new Error('no code verifier saved');
      return state.verifier;
    },
    // Kept with the verifier, so the SDK can check the callback comes from the authorization server it chose.
    saveDiscoveryState: (discovery) => {
      state.discovery = discovery;
    },
    discoveryState: () => state.discovery,
  };
  return { provider, state };
}

describe("the v2 client's own OAuth support", () => {
  for (const mode of ['legacy', '2026-07-28'] as const) {
    it(`${mode}: discovers the authorization server from the 401, runs authorization code + PKCE, then lists and calls`, async () => {
      const { provider, state } = publicClientProvider(as);
      const endpoint = new URL(jwtServer.http.endpoint);
      const first = newV2Client({ mode });
      const transport = new StreamableHTTPClientTransport(endpoint, { authProvider: provider });
      await expect(first.connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);
      // The SDK found the provider through the challenge and the metadata, and sent the user to its /auth with PKCE,
      // the resource indicator and the scopes the server advertises.
      const url = state.authorizationUrl;
      expect(url?.origin).toBe(as.issuer);
      expect(url?.searchParams.get('resource')).toBe(jwtServer.resource);
      expect(url?.searchParams.get('code_challenge_method')).toBe('S256');
      // The browser's part: log in as erin and consent.
      const callback = await as.authorize(url!.href, 'erin');
      await transport.finishAuth(callback);
      expect(state.tokens?.access_token).toBeTruthy();
      expect(state.discovery).toBeDefined();

      const client = newV2Client({ mode });
      await client.connect(new StreamableHTTPClientTransport(endpoint, { authProvider: provider }));
      try {
        expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(['note', 'whoami']);
        expect(whoamiText(await client.callTool({ name: 'whoami', arguments: {} })).subject).toBe('erin');
      } finally {
        await Promise.allSettled([client.close(), first.close()]);
      }
    });
  }
});
