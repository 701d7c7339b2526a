/**
 * The auth guard against a real authorization server (oidc-provider on loopback): JWT access tokens
 * minted for this resource by the provider, and tokens forged or bent in the ways an attacker would.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startAuthServer, type TestAuthServer } from '@mcpkit/test-utils/auth';
import { base64url, decodeJwt, decodeProtectedHeader, generateKeyPair, importJWK, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, call, type Harness, invalidToken, makeGuard, OTHER_RESOURCE, RESOURCE, refused, resources } from './guardHarness.ts';

describe('auth guard with JWT access tokens', () => {
  let as: TestAuthServer;
  let h: Harness;

  beforeAll(async () => {
    as = await startAuthServer({ resources });
    h = makeGuard(as.issuer);
  });
  afterAll(async () => {
    await h?.guard.close();
    await as?.close();
  });

  it('serves protected resource metadata for the endpoint', () => {
    expect(h.guard.metadataPaths).toEqual(['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource']);
    expect(h.guard.metadataUrl).toBe('http://127.0.0.1:3000/.well-known/oauth-protected-resource/mcp');
    expect(h.guard.metadataDocument()).toEqual({
      resource: RESOURCE,
      authorization_servers: [as.issuer],
      scopes_supported: ['memory:read', 'memory:write'],
      bearer_methods_supported: ['header'],
      resource_name: 'Test memory',
    });
  });

  it('asks for a token with a challenge naming the metadata, and the scope a call needs', async () => {
    const none = refused(await h.guard.check({}, { jsonrpc: '2.0', id: 1, method: 'initialize' }), undefined);
    expect(none.status).toBe(401);
    expect(none.headers['www-authenticate']).toBe(
      'Bearer resource_metadata="http://127.0.0.1:3000/.well-known/oauth-protected-resource/mcp"',
    );
    // RFC 6750 §3.1: no credentials is not an invalid token; neither the challenge nor the body names an error.
    expect(none.body).toEqual({ error_description: expect.stringMatching(/needs an OAuth bearer token/) });
    const write = refused(await h.guard.check({ authorization: 'Basic dXNlcjpwYXNz' }, call('create_entities')), undefined);
    expect(write.status).toBe(401);
    expect(write.headers['www-authenticate']).toBe(
      'Bearer resource_metadata="http://127.0.0.1:3000/.well-known/oauth-protected-resource/mcp", scope="memory:write"',
    );
    expect(write.body.error).toBeUndefined();
    const malformed = refused(await h.guard.check({ authorization: 'Bearer a b c' }, undefined), undefined);
    expect(malformed.status).toBe(401);
    expect(malformed.headers['www-authenticate']).toContain('error="invalid_token"');
    expect(malformed.body.error).toBe('invalid_token');
  });

  it('accepts a valid token and gives the SDK AuthInfo', async () => {
    const token = await as.clientCredentialsToken({ resource: RESOURCE, scope: 'memory:read memory:write' });
    const result = await h.guard.check(bearer(token), call('create_entities'));
    if (!result.ok) throw new Error(`refused: ${JSON.stringify(result)}`);
    const claims = decodeJwt(token);
    expect(result.authInfo).toEqual({
      token,
      clientId: as.service.id,
      scopes: ['memory:read', 'memory:write'],
      expiresAt: claims.exp,
      resource: new URL(RESOURCE),
      resourceMetadataUrl: 'http://127.0.0.1:3000/.well-known/oauth-protected-resource/mcp',
      extra: { subject: as.service.id, issuer: as.issuer },
    });
    // Headers as a fetch Headers object work the same.
    expect((await h.guard.check(new Headers(bearer(token)), call('read_graph'))).ok).toBe(true);
  });

  it('runs the authorization code flow with PKCE and carries the user as the subject', async () => {
    const token = await as.authorizationCodeToken({ resource: RESOURCE, scope: 'memory:read', login: 'alice' });
    const result = await h.guard.check(bearer(token), call('read_graph'));
    if (!result.ok) throw new Error(`refused: ${JSON.stringify(result)}`);
    expect(result.authInfo.clientId).toBe(as.publicClient.id);
    expect(result.authInfo.scopes).toEqual(['memory:read']);
    expect(result.authInfo.extra).toEqual({ subject: 'alice', issuer: as.issuer });
  });

  it('refuses an expired token, within the clock skew only', async () => {
    const token = await as.clientCredentialsToken({ resource: RESOURCE, scope: 'memory:read' });
    const exp = decodeJwt(token).exp as number;
    try {
      h.clock.offsetMs = exp * 1000 - Date.now() + 20_000; // 20 s past exp, skew 30 s
      expect((await h.guard.check(bearer(token), undefined)).ok).toBe(true);
      h.clock.offsetMs = exp * 1000 - Date.now() + 40_000;
      invalidToken(await h.guard.check(bearer(token), undefined), token, h.logs, /expired/);
    } finally {
      h.clock.offsetMs = 0;
    }
  });

  it('refuses a token minted for another resource (RFC 8707)', async () => {
    const token = await as.clientCredentialsToken({ resource: OTHER_RESOURCE, scope: 'memory:read' });
    expect(decodeJwt(token).aud).toBe(OTHER_RESOURCE);
    invalidToken(await h.guard.check(bearer(token), undefined), token, h.logs, /another resource/);
  });

  it('refuses a token from another issuer, even signed by a trusted key', async () => {
    await using other = await startAuthServer({ resources, keys: as.keys() });
    const token = await other.clientCredentialsToken({ resource: RESOURCE, scope: 'memory:read' });
    expect(decodeProtectedHeader(token).kid).toBe(as.keys()[0]?.kid);
    invalidToken(await h.guard.check(bearer(token), undefined), token, h.logs, /another authorization server/);
  });

  it('refuses a token signed by a foreign key', async () => {
    const real = await as.clientCredentialsToken({ resource: RESOURCE, scope: 'memory:read' });
    const { privateKey } = await generateKeyPair('RS256');
    const sign = (kid: string) => new SignJWT(decodeJwt(real)).setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid }).sign(privateKey);
    const sameKid = await sign(decodeProtectedHeader(real).kid as string);
    invalidToken(await h.guard.check(bearer(sameKid), undefined), sameKid, h.logs, /signature is invalid/);
    const foreignKid = await sign('attacker-key');
    invalidToken(await h.guard.check(bearer(foreignKid), undefined), foreignKid, h.logs, /not signed by any of the issuer's keys/);
  });

  it('refuses an unsigned token (alg none) and an HS256 token keyed with the public key', async () => {
    const real = await as.clientCredentialsToken({ resource: RESOURCE, scope: 'memory:read memory:write' });
    const payload = decodeJwt(real);
    const encode = (v: unknown) => base64url.encode(JSON.stringify(v));
    const unsigned = `${encode({ alg: 'none', typ: 'at+jwt' })}.${encode(payload)}.`;
    invalidToken(await h.guard.check(bearer(unsigned), call('create_entities')), unsigned, h.logs, /./);

    const publicJwk = { ...as.keys()[0] };
    for (const k of ['d', 'p', 'q', 'dp', 'dq', 'qi']) delete (publicJwk as Record<string, unknown>)[k];
    const secret = new TextEncoder().encode(JSON.stringify(publicJwk));
    const hs = await new SignJWT(payload).setProtectedHeader({ alg: 'HS256', kid: publicJwk.kid as string }).sign(secret);
    invalidToken(await h.guard.check(bearer(hs), call('create_entities')), hs, h.logs, /algorithm is not accepted/);
  });

  it("refuses a token without expiry, even signed with the issuer's own key", async () => {
    const real = await as.clientCredentialsToken({ resource: RESOURCE, scope: 'memory:read' });
    const { exp: _exp, ...claims } = decodeJwt(real);
    const key = as.keys()[0];
    if (!key) throw new Error('no key');
    const signer = await importJWK(key, 'RS256');
    const endless = await new SignJWT(claims).setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid: key.kid as string }).sign(signer);
    invalidToken(await h.guard.check(bearer(endless), undefined), endless, h.logs, /no expiry/);
    // The same signer with the claims intact is accepted: the refusal above is about `exp` alone.
    const intact = await new SignJWT(decodeJwt(real))
      .setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid: key.kid as string })
      .sign(signer);
    expect((await h.guard.check(bearer(intact), undefined)).ok).toBe(true);
  });

  it('refuses a call without the scope with 403 and a step-up challenge; listing needs none', async () => {
    const token = await as.clientCredentialsToken({ resource: RESOURCE, scope: 'memory:read' });
    expect((await h.guard.check(bearer(token), { jsonrpc: '2.0', id: 1, method: 'tools/list' })).ok).toBe(true);
    expect((await h.guard.check(bearer(token), call('read_graph'))).ok).toBe(true);
    const r = refused(await h.guard.check(bearer(token), call('create_entities')), token, h.logs);
    expect(r.status).toBe(403);
    expect(r.body).toEqual({ error: 'insufficient_scope', error_description: 'this call needs the scope memory:write' });
    expect(r.headers['www-authenticate']).toBe(
      'Bearer resource_metadata="http://127.0.0.1:3000/.well-known/oauth-protected-resource/mcp", error="insufficient_scope", error_description="this call needs the scope memory:write", scope="memory:write"',
    );
    // A batch needs what all its calls need; the challenge asks for all of it.
    const batch = refused(await h.guard.check(bearer(token), [call('read_graph', 1), call('create_entities', 2)]), token, h.logs);
    expect(batch.status).toBe(403);
    expect(batch.headers['www-authenticate']).toContain('scope="memory:read memory:write"');
  });

  it("checks the operator's scope names", async () => {
    const renamed = makeGuard(as.issuer, ['--oauth-scope-map', 'memory:write=mcp.write']);
    try {
      const old = await as.clientCredentialsToken({ resource: RESOURCE, scope: 'memory:write' });
      const r = refused(await renamed.guard.check(bearer(old), call('create_entities')), old);
      expect(r.status).toBe(403);
      expect(r.headers['www-authenticate']).toContain('scope="mcp.write"');
      const token = await as.clientCredentialsToken({ resource: RESOURCE, scope: 'mcp.write' });
      expect((await renamed.guard.check(bearer(token), call('create_entities'))).ok).toBe(true);
      expect(renamed.guard.metadataDocument().scopes_supported).toEqual(['memory:read', 'mcp.write']);
    } finally {
      await renamed.guard.close();
    }
  });

  it('refuses discovery when the metadata names another issuer', async () => {
    const wrong = makeGuard(`${as.issuer}/`);
    try {
      await expect(wrong.guard.ready()).rejects.toThrow(/names the issuer "http:\/\/127\.0\.0\.1:\d+", not "http:\/\/127\.0\.0\.1:\d+\/"/);
      const token = await as.clientCredentialsToken({ resource: RESOURCE, scope: 'memory:read' });
      const r = refused(await wrong.guard.check(bearer(token), undefined), token, wrong.logs);
      expect(r.status).toBe(503);
      expect(wrong.logs.join('')).toMatch(/refusing it \(RFC 8414/);
    } finally {
      await wrong.guard.close();
    }
  });

  it('fetches a JWKS on another private host only when allowed', async () => {
    const jwks = await fetch(`${as.issuer}/jwks`).then((r) => r.text());
    const keyServer = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(jwks));
    await new Promise<void>((resolve) => keyServer.listen(0, '127.0.0.1', resolve));
    const hostPort = `127.0.0.1:${(keyServer.address() as AddressInfo).port}`;
    const token = await as.clientCredentialsToken({ resource: RESOURCE, scope: 'memory:read' });
    const blocked = makeGuard(as.issuer, ['--oauth-jwks-url', `http://${hostPort}/keys`]);
    const allowed = makeGuard(as.issuer, ['--oauth-jwks-url', `http://${hostPort}/keys`, '--oauth-allow-host', hostPort]);
    try {
      const r = refused(await blocked.guard.check(bearer(token), undefined), token, blocked.logs);
      expect(r.status).toBe(503);
      expect(blocked.logs.join('')).toContain(`--oauth-allow-host ${hostPort}`);
      expect((await allowed.guard.check(bearer(token), undefined)).ok).toBe(true);
    } finally {
      await blocked.guard.close();
      await allowed.guard.close();
      keyServer.closeAllConnections();
      await new Promise<void>((resolve) => keyServer.close(() => resolve()));
    }
  });
});

describe('auth guard and key rotation', () => {
  it('accepts a token signed with a new key after fetching the JWKS again', async () => {
    await using as = await startAuthServer({ resources });
    const h = makeGuard(as.issuer, [], { jwksCooldownMs: 0 });
    try {
      const before = await as.clientCredentialsToken({ resource: RESOURCE, scope: 'memory:read' });
      expect((await h.guard.check(bearer(before), undefined)).ok).toBe(true);
      const kid = await as.rotateKeys();
      const after = await as.clientCredentialsToken({ resource: RESOURCE, scope: 'memory:read' });
      expect(decodeProtectedHeader(after).kid).toBe(kid);
      expect(decodeProtectedHeader(after).kid).not.toBe(decodeProtectedHeader(before).kid);
      expect((await h.guard.check(bearer(after), undefined)).ok).toBe(true);
      expect((await h.guard.check(bearer(before), undefined)).ok).toBe(true);
    } finally {
      await h.guard.close();
    }
  });

  it('does not fetch the JWKS again within the cooldown, so the refresh is what accepts the new key', async () => {
    await using as = await startAuthServer({ resources });
    const h = makeGuard(as.issuer);
    try {
      const before = await as.clientCredentialsToken({ resource: RESOURCE, scope: 'memory:read' });
      expect((await h.guard.check(bearer(before), undefined)).ok).toBe(true);
      await as.rotateKeys();
      const after = await as.clientCredentialsToken({ resource: RESOURCE, scope: 'memory:read' });
      invalidToken(await h.guard.check(bearer(after), undefined), after, h.logs, /not signed by any of the issuer's keys/);
    } finally {
      await h.guard.close();
    }
  });
});
