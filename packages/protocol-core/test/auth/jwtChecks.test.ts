/**
 * What a JWT must also be, against a real authorization server (oidc-provider on loopback): not issued in the
 * future beyond the clock skew, of the required header `typ` when `--oauth-require-typ` names one; and what the
 * server does when the key set is broken (asked again only after a short TTL) or is not an http(s) URL at all.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startAuthServer, type TestAuthServer } from '@mcpkit/test-utils/auth';
import { decodeJwt, importJWK, type JWTPayload, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JWKS_FAILURE_TTL_MS } from '../../src/auth/jwt.ts';
import { bearer, invalidToken, makeGuard, RESOURCE, refused, resources } from './guardHarness.ts';

let as: TestAuthServer;
beforeAll(async () => {
  as = await startAuthServer({ resources });
});
afterAll(async () => {
  await as?.close();
});

/** The provider's own token for RESOURCE, re-signed with its key after `change` (a token the issuer could have minted). */
async function resigned(change: (claims: JWTPayload) => JWTPayload, typ = 'at+jwt'): Promise<string> {
  const real = await as.clientCredentialsToken({ resource: RESOURCE, scope: 'memory:read' });
  const key = as.keys()[0];
  if (!key) throw new Error('no key');
  return new SignJWT(change(decodeJwt(real)))
    .setProtectedHeader({ alg: 'RS256', typ, kid: key.kid as string })
    .sign(await importJWK(key, 'RS256'));
}

/** A stand-in server on loopback: counts its requests, answers each with `answer`. */
async function stub(
  answer: (path: string) => { status: number; body: unknown },
): Promise<{ url: string; hits: () => number; server: Server }> {
  let hits = 0;
  const server = createServer((req, res) => {
    hits++;
    const { status, body } = answer(new URL(req.url ?? '/', 'http://x').pathname);
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits: () => hits, server };
}

const stop = (server: Server) => {
  server.closeAllConnections();
  return new Promise<void>((resolve) => server.close(() => resolve()));
};

describe('claims beyond the signature', () => {
  it('refuses a token issued in the future beyond the clock skew; within it, accepts it', async () => {
    const h = makeGuard(as.issuer);
    try {
      const now = Math.floor(Date.now() / 1000);
      const future = await resigned((c) => ({ ...c, iat: now + 3600, exp: now + 7200 }));
      invalidToken(await h.guard.check(bearer(future), undefined), future, h.logs, /issued in the future/);
      const withinSkew = await resigned((c) => ({ ...c, iat: now + 10, exp: now + 7200 }));
      expect((await h.guard.check(bearer(withinSkew), undefined)).ok).toBe(true);
    } finally {
      await h.guard.close();
    }
  });

  it('--oauth-require-typ at+jwt refuses a JWT of another typ (an ID token, or Keycloak\'s "JWT"); off by default', async () => {
    const strict = makeGuard(as.issuer, ['--oauth-require-typ', 'at+jwt']);
    const lax = makeGuard(as.issuer);
    try {
      const provider = await as.clientCredentialsToken({ resource: RESOURCE, scope: 'memory:read' });
      expect((await strict.guard.check(bearer(provider), undefined)).ok).toBe(true);
      const media = await resigned((c) => c, 'application/AT+JWT');
      expect((await strict.guard.check(bearer(media), undefined)).ok).toBe(true);
      const plain = await resigned((c) => c, 'JWT');
      invalidToken(await strict.guard.check(bearer(plain), undefined), plain, strict.logs, /not an access token/);
      expect((await lax.guard.check(bearer(plain), undefined)).ok).toBe(true);
    } finally {
      await Promise.all([strict.guard.close(), lax.guard.close()]);
    }
  });
});

describe('a broken key set', () => {
  it('is fetched once per failure TTL, not on every request', async () => {
    const jwks = await stub(() => ({ status: 500, body: { error: 'down' } }));
    const hostPort = new URL(jwks.url).host;
    const h = makeGuard(as.issuer, ['--oauth-jwks-url', `${jwks.url}/keys`, '--oauth-allow-host', hostPort]);
    try {
      const token = await as.clientCredentialsToken({ resource: RESOURCE, scope: 'memory:read' });
      for (let i = 0; i < 5; i++) expect(refused(await h.guard.check(bearer(token), undefined), token, h.logs).status).toBe(503);
      expect(jwks.hits()).toBe(1);
      h.clock.offsetMs = JWKS_FAILURE_TTL_MS + 1000;
      expect(refused(await h.guard.check(bearer(token), undefined), token, h.logs).status).toBe(503);
      expect(jwks.hits()).toBe(2);
    } finally {
      await h.guard.close();
      await stop(jwks.server);
    }
  });

  it('a file: jwks_uri in the metadata is refused with a message naming it (not "could not reach null")', async () => {
    const metadata = await stub(() => ({ status: 200, body: { issuer: issuerOf(), jwks_uri: 'file:///etc/keys.json' } }));
    const issuerOf = () => metadata.url;
    const h = makeGuard(metadata.url);
    try {
      const token = await as.clientCredentialsToken({ resource: RESOURCE, scope: 'memory:read' });
      expect(refused(await h.guard.check(bearer(token), undefined), token, h.logs).status).toBe(503);
      const logged = h.logs.join('\n');
      expect(logged).toContain('file:///etc/keys.json');
      expect(logged).not.toContain('null');
    } finally {
      await h.guard.close();
      await stop(metadata.server);
    }
  });
});
