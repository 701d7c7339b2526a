/**
 * The auth suite every server package runs against its built bin over Streamable HTTP: a real authorization
 * server (oidc-provider on loopback), the bin started with `--oauth-issuer`/`--oauth-audience`, and what a host
 * and an attacker would try: the metadata, no token, a valid token through the v2 client in both eras and the v1
 * client, a token without the tool's scope, a token for another resource, another user's session. Call it inside
 * a test file: `describeOAuthBin({ … })`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLIENT_KINDS, connectWithToken, type HttpBin, postJson, spawnHttpBin } from './bin.js';
import { startAuthServer, type TestAuthServer } from './provider.js';

/** The resource identifier the bins are started with: a public URL, as behind a TLS reverse proxy. */
export const BIN_RESOURCE = 'https://mcp.example.com/mcp';
const OTHER_RESOURCE = 'https://other.example.com/mcp';
const UNRELATED_SCOPE = 'unrelated:scope';

export interface ToolCall {
  name: string;
  /** The call's arguments, or a function giving them once the suite's `beforeAll` ran (a URL known only then). */
  arguments: Record<string, unknown> | (() => Record<string, unknown>);
}

const argsOf = (call: ToolCall) => (typeof call.arguments === 'function' ? call.arguments() : call.arguments);

export interface OAuthBinSuite {
  /** The built bin (`dist/index.js`). */
  bin: string;
  /** The bin's own flags (a memory file, allowed hosts); `--transport http --port 0` and the OAuth flags are added. */
  args?: () => string[] | Promise<string[]>;
  env?: Record<string, string>;
  /** Every scope the server declares. */
  scopes: readonly string[];
  /** Every tool `tools/list` shows. */
  tools: readonly string[];
  /** A call that works with `scope` alone; `check` looks at its result. */
  call: ToolCall & { scope: string; check?: (result: { content?: unknown; structuredContent?: unknown; isError?: boolean }) => void };
  /** A call that needs a scope `call.scope` does not grant (the 403 case), when the server has one. */
  otherScopeCall?: ToolCall & { scope: string };
  /**
   * A read that is not a tool call (`resources/read`, `prompts/get`) and needs `scope`: a token with only `granted`
   * (default: a scope none of the server's requests accept) gets 403 naming `scope`, as a tool call would.
   */
  read?: { method: string; params: Record<string, unknown>; scope: string; granted?: string };
}

export function describeOAuthBin(suite: OAuthBinSuite): void {
  let as: TestAuthServer;
  let server: HttpBin;

  beforeAll(async () => {
    as = await startAuthServer({
      // `unrelated:scope`: a scope the provider grants for this resource that none of the server's tools accept.
      resources: {
        [BIN_RESOURCE]: { scopes: [...suite.scopes, UNRELATED_SCOPE] },
        [OTHER_RESOURCE]: { scopes: [...suite.scopes] },
      },
    });
    server = await spawnHttpBin(suite.bin, {
      args: [...((await suite.args?.()) ?? []), '--oauth-issuer', as.issuer, '--oauth-audience', BIN_RESOURCE],
      ...(suite.env ? { env: suite.env } : {}),
    });
  });
  afterAll(async () => {
    await server?.close();
    await as?.close();
  });

  const post = (body: unknown, headers: Record<string, string> = {}) => postJson(server.endpoint, body, headers);
  const initialize = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
  };

  describe('OAuth over Streamable HTTP (built bin)', () => {
    it('serves the protected resource metadata naming the authorization server and its scopes', async () => {
      const response = await fetch(`${server.url}/.well-known/oauth-protected-resource/mcp`);
      expect(response.status).toBe(200);
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
      const document = (await response.json()) as { resource: string; authorization_servers: string[]; scopes_supported: string[] };
      expect(document.resource).toBe(BIN_RESOURCE);
      expect(document.authorization_servers).toEqual([as.issuer]);
      expect([...document.scopes_supported].sort()).toEqual([...suite.scopes].sort());
      expect(server.stderr()).toContain(`OAuth: tokens from ${as.issuer} for ${BIN_RESOURCE}`);
    });

    it('answers a request without a token 401 with the metadata URL in WWW-Authenticate', async () => {
      const response = await post(initialize);
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe(
        'Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"',
      );
      // RFC 6750 §3.1: a request without credentials is not told its token is invalid.
      expect(((await response.json()) as { error?: string }).error).toBeUndefined();
    });

    for (const kind of CLIENT_KINDS) {
      it(`${kind}: with a token lists every tool and calls ${suite.call.name}`, async () => {
        const token = await as.authorizationCodeToken({ resource: BIN_RESOURCE, scope: suite.call.scope, login: 'alice' });
        await using client = await connectWithToken(kind, server.endpoint, token);
        expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual([...suite.tools].sort());
        const result = await client.callTool({ name: suite.call.name, arguments: argsOf(suite.call) });
        expect(result.isError).toBeFalsy();
        suite.call.check?.(result);
      });
    }

    it('refuses a call whose scope the token lacks: 403 insufficient_scope with the scope to ask for', async () => {
      const target = suite.otherScopeCall ?? suite.call;
      const granted = suite.otherScopeCall ? suite.call.scope : UNRELATED_SCOPE;
      const token = await as.authorizationCodeToken({ resource: BIN_RESOURCE, scope: granted, login: 'alice' });
      const call = { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: target.name, arguments: argsOf(target) } };
      // The check runs before any session or era: the 2026 envelope gets the same answer.
      const response = await post(call, { authorization: `Bearer ${token}`, 'mcp-session-id': 'unused' });
      expect(response.status).toBe(403);
      expect(response.headers.get('www-authenticate')).toMatch(/error="insufficient_scope"/);
      expect(response.headers.get('www-authenticate')).toContain(`scope="${target.scope}"`);
      expect(await response.json()).toMatchObject({ error: 'insufficient_scope' });
    });

    if (suite.read) {
      const read = suite.read;
      it(`refuses ${read.method} without ${read.scope}: 403 insufficient_scope, as for a tool`, async () => {
        const token = await as.authorizationCodeToken({ resource: BIN_RESOURCE, scope: read.granted ?? UNRELATED_SCOPE, login: 'alice' });
        const request = { jsonrpc: '2.0', id: 8, method: read.method, params: read.params };
        const response = await post(request, { authorization: `Bearer ${token}`, 'mcp-session-id': 'unused' });
        expect(response.status).toBe(403);
        expect(response.headers.get('www-authenticate')).toMatch(/error="insufficient_scope"/);
        expect(response.headers.get('www-authenticate')).toContain(`scope="${read.scope}"`);
        expect(await response.json()).toMatchObject({ error: 'insufficient_scope' });
      });
    }

    it('refuses a token minted for another resource (401 invalid_token) and a tampered one', async () => {
      const other = await as.clientCredentialsToken({ resource: OTHER_RESOURCE, scope: suite.call.scope });
      const refused = await post(initialize, { authorization: `Bearer ${other}` });
      expect(refused.status).toBe(401);
      expect(refused.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
      await refused.body?.cancel();
      const good = await as.clientCredentialsToken({ resource: BIN_RESOURCE, scope: suite.call.scope });
      const [header, payload, signature] = good.split('.') as [string, string, string];
      const flipped = `${header}.${payload}.${signature.slice(0, -2)}${signature.endsWith('AA') ? 'BB' : 'AA'}`;
      const tampered = await post(initialize, { authorization: `Bearer ${flipped}` });
      expect(tampered.status).toBe(401);
      await tampered.body?.cancel();
    });

    it("refuses another user's 2025 session id (404); its owner keeps using it", async () => {
      const alice = await as.authorizationCodeToken({ resource: BIN_RESOURCE, scope: suite.call.scope, login: 'alice' });
      const bob = await as.authorizationCodeToken({ resource: BIN_RESOURCE, scope: suite.call.scope, login: 'bob' });
      const opened = await post(initialize, { authorization: `Bearer ${alice}` });
      expect(opened.status).toBe(200);
      await opened.body?.cancel();
      const sid = opened.headers.get('mcp-session-id') as string;
      const session = { 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' };
      const done = await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, { authorization: `Bearer ${alice}`, ...session });
      expect(done.status).toBe(202);
      const list = { jsonrpc: '2.0', id: 2, method: 'tools/list' };
      const stolen = await post(list, { authorization: `Bearer ${bob}`, ...session });
      expect(stolen.status).toBe(404);
      await stolen.body?.cancel();
      const own = await post(list, { authorization: `Bearer ${alice}`, ...session });
      expect(own.status).toBe(200);
      expect(await own.text()).toContain(suite.call.name);
    });
  });
}
