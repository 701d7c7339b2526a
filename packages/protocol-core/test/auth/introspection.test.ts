/**
 * Opaque access tokens checked by introspection (RFC 7662) at a real authorization server
 * (oidc-provider on loopback), revocation included.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AuthCheck, type AuthGuard, createAuthGuard } from '../../src/auth/guard.ts';
import { parseAuthConfig } from '../../src/auth/options.ts';
import { createLogger } from '../../src/logger.ts';
import { startAuthServer, type TestAuthServer } from './provider.ts';

const RESOURCE = 'http://127.0.0.1:3000/mcp';
const OTHER_RESOURCE = 'http://127.0.0.1:3000/other-mcp';
const call = (name: string) => ({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: {} } });
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

function refusal(result: AuthCheck, token: string, logs: string[]) {
  if (result.ok) throw new Error('expected a refusal');
  expect(JSON.stringify(result)).not.toContain(token);
  expect(logs.join('\n')).not.toContain(token);
  return result;
}

describe('auth guard with token introspection', () => {
  let as: TestAuthServer;
  const clock = { offsetMs: 0 };
  const logs: string[] = [];
  const guards: AuthGuard[] = [];

  function makeGuard(secret?: string): AuthGuard {
    const config = parseAuthConfig(['--oauth-issuer', as.issuer, '--oauth-audience', RESOURCE, '--oauth-introspect'], {
      MCP_OAUTH_CLIENT_ID: as.resourceServer.id,
      MCP_OAUTH_CLIENT_SECRET: secret ?? as.resourceServer.secret,
    });
    if (!config) throw new Error('no config');
    const guard = createAuthGuard(config, {
      scopes: { tools: { read_graph: 'memory:read', create_entities: 'memory:write' } },
      logger: createLogger({ name: 'auth', level: 'debug', write: (line) => logs.push(line) }),
      now: () => Date.now() + clock.offsetMs,
    });
    guards.push(guard);
    return guard;
  }

  beforeAll(async () => {
    as = await startAuthServer({
      resources: {
        [RESOURCE]: { scopes: ['memory:read', 'memory:write'], format: 'opaque' },
        [OTHER_RESOURCE]: { scopes: ['memory:read'], format: 'opaque' },
      },
    });
  });
  afterAll(async () => {
    await Promise.all(guards.map((g) => g.close()));
    await as?.close();
  });

  it('accepts an active opaque token with its scopes', async () => {
    const guard = makeGuard();
    const token = await as.clientCredentialsToken({ resource: RESOURCE, scope: 'memory:read' });
    expect(token.split('.')).toHaveLength(1);
    const result = await guard.check(bearer(token), call('read_graph'));
    if (!result.ok) throw new Error(`refused: ${JSON.stringify(result)}`);
    expect(result.authInfo.clientId).toBe(as.service.id);
    expect(result.authInfo.scopes).toEqual(['memory:read']);
    expect(result.authInfo.expiresAt).toBeGreaterThan(Date.now() / 1000);
    const write = refusal(await guard.check(bearer(token), call('create_entities')), token, logs);
    expect(write.status).toBe(403);
    expect(write.headers['www-authenticate']).toContain('scope="memory:write"');
  });

  it('refuses a revoked token once the few-second cache has passed', async () => {
    const guard = makeGuard();
    const token = await as.clientCredentialsToken({ resource: RESOURCE, scope: 'memory:read' });
    expect((await guard.check(bearer(token), undefined)).ok).toBe(true);
    await as.revoke(token);
    try {
      expect((await guard.check(bearer(token), undefined)).ok).toBe(true); // still within the 5 s cache
      clock.offsetMs = 6000;
      const r = refusal(await guard.check(bearer(token), undefined), token, logs);
      expect(r.status).toBe(401);
      expect(r.body.error_description).toMatch(/not active/);
      expect(r.headers['www-authenticate']).toContain('error="invalid_token"');
    } finally {
      clock.offsetMs = 0;
    }
  });

  it('refuses unknown tokens and tokens for another resource', async () => {
    const guard = makeGuard();
    const unknown = 'not-a-token-the-server-issued';
    expect(refusal(await guard.check(bearer(unknown), undefined), unknown, logs).status).toBe(401);
    const other = await as.clientCredentialsToken({ resource: OTHER_RESOURCE, scope: 'memory:read' });
    const r = refusal(await guard.check(bearer(other), undefined), other, logs);
    expect(r.status).toBe(401);
    expect(r.body.error_description).toMatch(/another resource/);
  });

  it('answers 503 when the authorization server refuses its client credentials', async () => {
    const guard = makeGuard('wrong-secret');
    const token = await as.clientCredentialsToken({ resource: RESOURCE, scope: 'memory:read' });
    const r = refusal(await guard.check(bearer(token), undefined), token, logs);
    expect(r.status).toBe(503);
    expect(r.body.error).toBe('temporarily_unavailable');
    expect(logs.join('')).toMatch(/refused this server's client credentials/);
    expect(logs.join('')).not.toContain('wrong-secret');
  });
});
