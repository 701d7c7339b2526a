/**
 * Opaque access tokens checked by introspection (RFC 7662) at a real authorization server
 * (oidc-provider on loopback), revocation included.
 */

import { randomBytes } from 'node:crypto';
import { startAuthServer, type TestAuthServer } from '@mcpkit/test-utils/auth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AuthCheck, type AuthGuard, createAuthGuard } from '../../src/auth/guard.ts';
import { MAX_IN_FLIGHT, MAX_WAITING, NEGATIVE_CACHE_MS } from '../../src/auth/introspection.ts';
import { parseAuthConfig } from '../../src/auth/options.ts';
import { createLogger } from '../../src/logger.ts';

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

  it('refuses an active token that names no audience (no resource indicator), though the issuer vouches for it', async () => {
    const guard = makeGuard();
    // Another client's token for openid only: no resource indicator, so no `aud`; the provider says it is active.
    const unbound = await as.clientCredentialsToken({ scope: 'openid' });
    const r = refusal(
      await guard.check(bearer(unbound), { jsonrpc: '2.0', id: 1, method: 'resources/read', params: { uri: 'x' } }),
      unbound,
      logs,
    );
    expect(r.status).toBe(401);
    expect(r.body).toEqual({ error: 'invalid_token', error_description: expect.stringMatching(/names no audience/) });
    expect(r.headers['www-authenticate']).toContain('error="invalid_token"');
  });

  it('asks about a refused token once per negative-cache TTL (kept by its hash), and once for concurrent requests', async () => {
    const guard = makeGuard();
    const path = '/token/introspection';
    const bogus = `bogus-${randomBytes(8).toString('hex')}`;
    const before = as.requestCount(path);
    for (let i = 0; i < 5; i++) expect(refusal(await guard.check(bearer(bogus), undefined), bogus, logs).status).toBe(401);
    expect(as.requestCount(path) - before).toBe(1);
    const concurrent = `bogus-${randomBytes(8).toString('hex')}`;
    const answers = await Promise.all(Array.from({ length: 5 }, () => guard.check(bearer(concurrent), undefined)));
    expect(answers.map((a) => (a.ok ? 200 : a.status))).toEqual([401, 401, 401, 401, 401]);
    expect(as.requestCount(path) - before).toBe(2);
    try {
      clock.offsetMs = NEGATIVE_CACHE_MS + 1000;
      expect(refusal(await guard.check(bearer(bogus), undefined), bogus, logs).status).toBe(401);
      expect(as.requestCount(path) - before).toBe(3);
    } finally {
      clock.offsetMs = 0;
    }
  });

  it(`runs at most ${MAX_IN_FLIGHT} introspections at once; past the queue, a request gets 503 at once`, async () => {
    const guard = makeGuard();
    const path = '/token/introspection';
    const before = as.requestCount(path);
    // The authorization server is slow: no introspection is answered until released.
    const release = as.hold(path);
    const flood = Array.from({ length: 300 }, () => `flood-${randomBytes(12).toString('hex')}`);
    const settled: AuthCheck[] = [];
    const pending = flood.map(async (t) => {
      const r = await guard.check(bearer(t), undefined);
      settled.push(r);
      return r;
    });
    try {
      // What neither runs nor fits in the queue is refused at once, while the others wait.
      await expect.poll(() => settled.length).toBe(300 - MAX_IN_FLIGHT - MAX_WAITING);
      expect(settled.map((r) => (r.ok ? 200 : r.status))).toEqual(settled.map(() => 503));
      await expect.poll(() => as.inProgress(path)).toBe(MAX_IN_FLIGHT);
    } finally {
      release();
    }
    const statuses = (await Promise.all(pending)).map((a) => (a.ok ? 200 : a.status));
    expect(as.peakConcurrency(path)).toBe(MAX_IN_FLIGHT);
    expect(statuses.filter((s) => s === 401)).toHaveLength(MAX_IN_FLIGHT + MAX_WAITING);
    expect(as.requestCount(path) - before).toBe(MAX_IN_FLIGHT + MAX_WAITING);
    // Once the flood is over, a real user is answered.
    const token = await as.clientCredentialsToken({ resource: RESOURCE, scope: 'memory:read' });
    expect((await guard.check(bearer(token), undefined)).ok).toBe(true);
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
