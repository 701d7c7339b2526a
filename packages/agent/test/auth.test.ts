/**
 * OAuth for HTTP servers, end to end: a real authorization server (oidc-provider on loopback) in
 * front of the built memory server started with `--oauth-*`, the SDK client's OAuth support driven
 * by the agent's provider, token store and loopback redirect; the browser step walked over HTTP.
 */

import { readdir, readFile, stat } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { postJson } from '@mcpkit/test-utils/http-bin';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createRegistry, createTokenStore, isMcpError, login, logout, type McpRegistry, type TokenStore } from '../src/index.js';
import { type ProtectedMemory, startProtectedMemory, testBrowser } from './authFixture.ts';

let setup: ProtectedMemory;
beforeAll(async () => {
  setup = await startProtectedMemory();
}, 60_000);
afterAll(async () => {
  await setup?.close();
});

const NEEDS_LOGIN = 'server "memory" needs a login: run mcp-agent login memory';

/** Log in with a fresh store; returns the store, the browser and what was logged. */
async function loggedIn(extra: Parameters<ProtectedMemory['config']>[0] = {}) {
  const dir = setup.tempDir();
  const store = createTokenStore(dir);
  const browser = testBrowser(setup.as);
  const lines: string[] = [];
  const result = await login(setup.config(extra), { store, openUrl: browser.openUrl, log: (line) => lines.push(line) });
  return { dir, store, browser, lines, result };
}

/** Logged in while the server grants only `memory:read` (a later write asks for `memory:write`: step-up). */
async function loggedInReadOnly(): Promise<TokenStore> {
  setup.resource.scopes.splice(0, setup.resource.scopes.length, 'memory:read');
  try {
    return (await loggedIn()).store;
  } finally {
    setup.resource.scopes.splice(0, setup.resource.scopes.length, 'memory:read', 'memory:write');
  }
}

/** The access tokens of these tests live this long (s): the fixture's shortest (a JWT's `exp` is in whole seconds). */
const SHORT_TTL_S = 1;

/**
 * Resolves once the memory server refuses `accessToken` (401): its `exp` has passed, and the server allows no clock
 * skew. The server is another process on the real clock, so this waits on that state (polled), bounded by a factor
 * of the token's lifetime, instead of sleeping past it.
 */
async function refusedByServer(accessToken: string | undefined): Promise<void> {
  await vi.waitFor(
    async () => {
      const response = await postJson(
        setup.endpoint,
        { jsonrpc: '2.0', id: 1, method: 'ping' },
        { authorization: `Bearer ${accessToken}` },
      );
      await response.body?.cancel();
      expect(response.status).toBe(401);
    },
    { timeout: SHORT_TTL_S * 1000 * 10, interval: 50 },
  );
}

async function storedTokens(store: TokenStore) {
  return (await store.read({ name: 'memory', url: setup.endpoint }))?.tokens;
}

async function withRegistry<T>(store: TokenStore, use: (registry: McpRegistry) => Promise<T>, openUrl?: (url: string) => Promise<void>) {
  const notices: string[] = [];
  const registry = await createRegistry([setup.config()], {
    host: { onNotice: (text) => notices.push(text) },
    oauth: { store, ...(openUrl ? { openUrl, log: () => {} } : {}) },
  });
  try {
    return await use(registry);
  } finally {
    await registry.close();
  }
}

describe('login', () => {
  it('runs the flow through the loopback redirect, keeps the tokens in a 0600 file in a 0700 directory, and the agent then calls tools', async () => {
    const { dir, store, browser, lines, result } = await loggedIn();
    expect(result).toEqual({ status: 'logged-in', tools: 9 });
    // The browser was sent to the authorization server the resource names, with PKCE and the resource indicator.
    expect(browser.opened).toHaveLength(1);
    const authorize = new URL(browser.opened[0] as string);
    expect(authorize.origin).toBe(setup.as.issuer);
    expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorize.searchParams.get('resource')).toBe(setup.endpoint);
    expect(authorize.searchParams.get('redirect_uri')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    // The URL is printed for a headless box.
    expect(lines.join('\n')).toContain(authorize.href);

    const files = await readdir(dir);
    expect(files).toHaveLength(1);
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    expect((await stat(`${dir}/${files[0]}`)).mode & 0o777).toBe(0o600);
    const record = JSON.parse(await readFile(`${dir}/${files[0]}`, 'utf8'));
    expect(record).toMatchObject({ name: 'memory', url: setup.endpoint, tokens: { token_type: expect.stringMatching(/bearer/i) } });
    // Registered dynamically (no client in the config), bound to the issuer.
    expect(record.clientInformation).toMatchObject({ client_id: expect.any(String), issuer: setup.as.issuer });
    expect(record.tokens.refresh_token).toEqual(expect.any(String));

    const tokens = await storedTokens(store);
    await withRegistry(store, async (registry) => {
      expect(registry.serverReports()).toEqual([
        expect.objectContaining({ name: 'memory', status: 'connected', transport: 'streamable-http', tools: 9, auth: 'oauth' }),
      ]);
      const created = await registry.callTool('memory__create_entities', {
        entities: [{ name: 'Ada', entityType: 'person', observations: [] }],
      });
      expect(created.isError).toBeFalsy();
      const graph = await registry.callTool('memory__read_graph', {});
      expect(JSON.stringify(graph.structuredContent)).toContain('Ada');
      // Nothing the registry shows carries a token.
      const shown = JSON.stringify(registry.serverReports());
      expect(shown).not.toContain(tokens?.access_token);
      expect(shown).not.toContain(tokens?.refresh_token);
    });
    const printed = lines.join('\n');
    expect(printed).not.toContain(tokens?.access_token);
    expect(printed).not.toContain(tokens?.refresh_token);
  });

  it('a callback with a wrong state from another local process is ignored: the login waits for the right one', async () => {
    const store = createTokenStore(setup.tempDir());
    const strays: number[] = [];
    // Between the authorization server's answer and the browser's redirect, someone else hits the loopback port.
    const browser = testBrowser(setup.as, 'alice', async (url) => {
      const redirect = new URL(url).searchParams.get('redirect_uri') as string;
      const stray = await fetch(`${redirect}?code=stolen&state=not-this-login`);
      await stray.body?.cancel();
      strays.push(stray.status);
    });
    const lines: string[] = [];
    const result = await login(setup.config(), { store, openUrl: browser.openUrl, log: (line) => lines.push(line) });
    expect(result).toEqual({ status: 'logged-in', tools: 9 });
    expect(strays).toEqual([400]);
    expect(lines).toContain('ignored a callback whose state does not belong to this login; still waiting for the browser');
    expect(await storedTokens(store)).toMatchObject({ access_token: expect.any(String) });
  });

  it('uses a pre-registered client from the config instead of registering, and asks for its extra scopes', async () => {
    const { store, result, browser } = await loggedIn({ oauth: { clientId: setup.as.publicClient.id, scopes: ['openid'] } });
    expect(result.status).toBe('logged-in');
    const authorize = new URL(browser.opened[0] as string).searchParams;
    expect(authorize.get('client_id')).toBe(setup.as.publicClient.id);
    expect(authorize.get('scope')?.split(' ')).toEqual(expect.arrayContaining(['memory:read', 'memory:write', 'openid']));
    const record = await store.read({ name: 'memory', url: setup.endpoint });
    // The config's client, stamped with the issuer it was used with: nothing was registered.
    expect(record?.clientInformation).toEqual({ client_id: setup.as.publicClient.id, issuer: setup.as.issuer });
    expect(record?.tokens?.access_token).toEqual(expect.any(String));
  });
});

describe('connecting', () => {
  it('without a login: one clear line naming the command, and nothing registered or stored', async () => {
    const dir = setup.tempDir();
    const store = createTokenStore(dir);
    await withRegistry(store, async (registry) => {
      expect(registry.serverReports()).toEqual([
        expect.objectContaining({ name: 'memory', status: 'failed', error: NEEDS_LOGIN, auth: 'needs login', transport: 'http' }),
      ]);
    });
    expect(await readdir(dir).catch(() => [])).toEqual([]);
  });

  it('refreshes an expired access token by itself and stores the new one', async () => {
    setup.resource.ttlSeconds = SHORT_TTL_S;
    let first: Awaited<ReturnType<typeof storedTokens>>;
    let store: TokenStore;
    try {
      ({ store } = await loggedIn());
      first = await storedTokens(store);
    } finally {
      delete setup.resource.ttlSeconds;
    }
    expect(first?.expires_in).toBe(SHORT_TTL_S);
    await refusedByServer(first?.access_token);
    await withRegistry(store, async (registry) => {
      expect(registry.serverReports()[0]).toMatchObject({ status: 'connected', auth: 'oauth' });
      expect((await registry.callTool('memory__read_graph', {})).isError).toBeFalsy();
    });
    const second = await storedTokens(store);
    expect(second?.access_token).toEqual(expect.any(String));
    expect(second?.access_token).not.toBe(first?.access_token);
  });
});

describe('during a chat', () => {
  it('a token that cannot be used or refreshed any more: the call fails with the command to run', async () => {
    setup.resource.ttlSeconds = SHORT_TTL_S;
    let store: TokenStore;
    try {
      ({ store } = await loggedIn());
    } finally {
      delete setup.resource.ttlSeconds;
    }
    await withRegistry(store, async (registry) => {
      expect(registry.serverReports()[0]).toMatchObject({ status: 'connected', auth: 'oauth' });
      // The grant is revoked at the authorization server (an administrator, another device); the file stays.
      const record = await store.read({ name: 'memory', url: setup.endpoint });
      const revoked = await fetch(`${setup.as.issuer}/token/revocation`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          token: record?.tokens?.refresh_token ?? '',
          token_type_hint: 'refresh_token',
          client_id: record?.clientInformation?.client_id ?? '',
        }).toString(),
      });
      expect(revoked.status).toBe(200);
      await refusedByServer(record?.tokens?.access_token);
      const error = await registry.callTool('memory__read_graph', {}).catch((e: unknown) => e);
      expect(isMcpError(error, 'TOOL_EXECUTION_FAILED')).toBe(true);
      expect((error as Error).message).toBe(NEEDS_LOGIN);
      expect(registry.serverReports()[0]).toMatchObject({ auth: 'needs login' });
    });
  });
});

describe('logout', () => {
  it('revokes the tokens at the authorization server and deletes them; the server then needs a login again', async () => {
    const { dir, store } = await loggedIn();
    const tokens = await storedTokens(store);
    const record = await store.read({ name: 'memory', url: setup.endpoint });
    expect(await logout(setup.config(), { store })).toEqual({ removed: true, revocation: 'revoked' });
    expect(await readdir(dir)).toEqual([]);
    // The refresh token is dead at the authorization server.
    const refreshed = await fetch(`${setup.as.issuer}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: tokens?.refresh_token ?? '',
        client_id: record?.clientInformation?.client_id ?? '',
      }).toString(),
    });
    expect(refreshed.status).toBe(400);
    expect(await refreshed.json()).toMatchObject({ error: 'invalid_grant' });
    await withRegistry(store, async (registry) => {
      expect(registry.serverReports()[0]).toMatchObject({ status: 'failed', error: NEEDS_LOGIN, auth: 'needs login' });
    });
    expect(await logout(setup.config(), { store })).toEqual({ removed: false, revocation: 'nothing-to-revoke' });
  });
});

describe('step-up (403 insufficient_scope)', () => {
  it('asks once for the wider scope and never again when the authorization server does not grant it', async () => {
    setup.resource.scopes.splice(0, setup.resource.scopes.length, 'memory:read');
    try {
      const { store } = await loggedIn();
      expect((await storedTokens(store))?.scope).not.toContain('memory:write');
      const browser = testBrowser(setup.as);
      await withRegistry(
        store,
        async (registry) => {
          const write = () =>
            registry.callTool('memory__create_entities', { entities: [{ name: 'Bob', entityType: 'person', observations: [] }] });
          const first = await write().catch((error: unknown) => error);
          expect(isMcpError(first, 'TOOL_EXECUTION_FAILED')).toBe(true);
          expect((first as Error).message).toBe(
            'server "memory" refuses this call without the scope "memory:write" (asked once already): run mcp-agent login memory --scope "memory:write"',
          );
          expect(browser.opened).toHaveLength(1);
          // The union of what was granted and what is wanted, as a fresh authorization.
          expect(new URL(browser.opened[0] as string).searchParams.get('scope')?.split(' ')).toEqual(
            expect.arrayContaining(['memory:read', 'memory:write']),
          );
          const second = await write().catch((error: unknown) => error);
          expect((second as Error).message).toContain('asked once already');
          expect(browser.opened).toHaveLength(1);
          // Reading still works with the narrower token.
          expect((await registry.callTool('memory__read_graph', {})).isError).toBeFalsy();
        },
        browser.openUrl,
      );
    } finally {
      setup.resource.scopes.splice(0, setup.resource.scopes.length, 'memory:read', 'memory:write');
    }
  });

  it('re-authorizes with the union of the scopes and retries the call once', async () => {
    const store = await loggedInReadOnly();
    const browser = testBrowser(setup.as);
    await withRegistry(
      store,
      async (registry) => {
        const result = await registry.callTool('memory__create_entities', {
          entities: [{ name: 'Cy', entityType: 'person', observations: [] }],
        });
        expect(result.isError).toBeFalsy();
        expect(browser.opened).toHaveLength(1);
      },
      browser.openUrl,
    );
    expect((await storedTokens(store))?.scope?.split(' ')).toEqual(expect.arrayContaining(['memory:read', 'memory:write']));
  });

  it('without a way to open a browser, says which command to run', async () => {
    const store = await loggedInReadOnly();
    await withRegistry(store, async (registry) => {
      const error = await registry.callTool('memory__create_entities', { entities: [] }).catch((e: unknown) => e);
      expect((error as Error).message).toBe(
        'server "memory" refuses this call without the scope "memory:write": run mcp-agent login memory --scope "memory:write"',
      );
    });
  });
});

/** A protected resource whose metadata names an authorization server whose metadata names another issuer. */
async function mixUpSetup() {
  const hits: string[] = [];
  const listen = async (handler: Parameters<typeof createServer>[1]) => {
    const server: Server = createServer(handler);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
  };
  const evil = await listen((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    if (req.url?.startsWith('/.well-known/')) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          issuer: setup.as.issuer,
          authorization_endpoint: `${setup.as.issuer}/auth`,
          token_endpoint: `http://127.0.0.1:1/token`,
          registration_endpoint: `http://127.0.0.1:1/reg`,
          response_types_supported: ['code'],
          code_challenge_methods_supported: ['S256'],
        }),
      );
      return;
    }
    res.writeHead(404).end();
  });
  const resource = await listen((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname.startsWith('/.well-known/oauth-protected-resource')) {
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ resource: `${resourceOrigin()}/mcp`, authorization_servers: [evil.origin] }));
      return;
    }
    res
      .writeHead(401, { 'www-authenticate': `Bearer resource_metadata="${resourceOrigin()}/.well-known/oauth-protected-resource/mcp"` })
      .end();
  });
  const resourceOrigin = () => resource.origin;
  const close = async () => {
    for (const { server } of [evil, resource]) {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  };
  return { hits, url: `${resource.origin}/mcp`, evil: evil.origin, close };
}

describe('authorization server metadata with another issuer (GHSA-6qxp-vccf-f47h)', () => {
  it('is refused before anything is sent to it: no registration, no browser', async () => {
    const mixUp = await mixUpSetup();
    try {
      const store = createTokenStore(setup.tempDir());
      const browser = testBrowser(setup.as);
      const error = await login(setup.config({ name: 'evil', url: mixUp.url }), { store, openUrl: browser.openUrl, log: () => {} }).catch(
        (e: unknown) => e,
      );
      expect(isMcpError(error, 'SERVER_START_FAILED')).toBe(true);
      expect((error as Error).message).toBe(
        `login to "evil" failed: the authorization server's metadata names the issuer ${JSON.stringify(setup.as.issuer)}, not ${JSON.stringify(mixUp.evil)} (refused: credentials go only to the issuer the server names)`,
      );
      expect(browser.opened).toEqual([]);
      expect(mixUp.hits.every((hit) => hit.startsWith('GET /.well-known/'))).toBe(true);
    } finally {
      await mixUp.close();
    }
  });
});
