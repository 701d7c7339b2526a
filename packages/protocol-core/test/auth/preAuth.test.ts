/**
 * No work before authentication: a request whose bearer token is missing, malformed or refused is answered from
 * its headers, before a byte of its body is read or parsed, and its connection is closed with the answer (so the
 * announced body is never read at all). Each request here announces a 4 MiB body and sends none of it: a server
 * that waited for the body before looking at the token would never answer.
 */

import { startAuthServer, type TestAuthServer } from '@mcpkit/test-utils/auth';
import { generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttp } from '../../src/testing/index.ts';
import { dripRequest } from '../fixtures/rawHttp.ts';
import { bearer, type Protected, serveProtected, testApp } from './protectedApp.ts';

const FOUR_MIB = 4 * 1024 * 1024;

/** The head of a POST to /mcp announcing a 4 MiB body, none of which is ever sent. */
function head(url: string, headers: Record<string, string> = {}): string {
  const lines = [
    'POST /mcp HTTP/1.1',
    `Host: ${new URL(url).host}`,
    'Content-Type: application/json',
    'Accept: application/json, text/event-stream',
    `Content-Length: ${FOUR_MIB}`,
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
  ];
  return `${lines.join('\r\n')}\r\n\r\n`;
}

/** Sends `head` and nothing more; resolves when the server closes the connection (or after 10 s, unanswered). */
const announce = (url: string, headers?: Record<string, string>) =>
  dripRequest(url, head(url, headers), '', { everyMs: 60_000, giveUpMs: 10_000 });

let as: TestAuthServer;
let server: Protected;

beforeAll(async () => {
  // Only its keys are used: the tokens here are forged or malformed.
  as = await startAuthServer({ resources: { 'http://127.0.0.1:1/unused': { scopes: ['test:read'] } } });
  server = await serveProtected(as);
});
afterAll(async () => {
  await server?.http[Symbol.asyncDispose]();
  await as?.close();
});

describe('with --oauth-issuer, an unauthenticated request is answered before its body is read', () => {
  it('no bearer token: 401 and the connection closed, the 4 MiB body never waited for', async () => {
    const r = await announce(server.http.url);
    expect(r.closed).toBe(true);
    expect(r.response).toMatch(/^HTTP\/1\.1 401 /);
    expect(r.response).toMatch(/\r\nconnection: close\r\n/i);
    expect(r.response).toContain('www-authenticate: Bearer resource_metadata=');
  });

  it('a malformed bearer token: 401 invalid_token, the body never waited for', async () => {
    const r = await announce(server.http.url, { Authorization: 'Bearer a b c' });
    expect(r.closed).toBe(true);
    expect(r.response).toMatch(/^HTTP\/1\.1 401 /);
    expect(r.response).toContain('error="invalid_token"');
  });

  it('a well-formed token with a bad signature: verified (and refused) before the body is read', async () => {
    const { privateKey } = await generateKeyPair('RS256');
    const forged = await new SignJWT({ scope: 'test:read test:write', sub: 'mallory' })
      .setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid: 'forged' })
      .setIssuer(as.issuer)
      .setAudience(server.resource)
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(privateKey);
    const r = await announce(server.http.url, bearer(forged));
    expect(r.closed).toBe(true);
    expect(r.response).toMatch(/^HTTP\/1\.1 401 /);
    expect(r.response).toContain('error="invalid_token"');
    expect(r.response).not.toContain(forged);
  });
});

describe('with --auth-token', () => {
  it('a wrong token: 401 and the connection closed, the announced body not read', async () => {
    await using http = await startHttp(testApp(), { authToken: 'the-right-token' });
    const r = await dripRequest(http.url, head(http.url, { Authorization: 'Bearer the-wrong-token' }), '', {
      everyMs: 60_000,
      giveUpMs: 10_000,
    });
    expect(r.response).toMatch(/^HTTP\/1\.1 401 /);
    // Closed with the answer, not kept alive to read (and throw away) the 4 MiB first.
    expect(r.response).toMatch(/\r\nconnection: close\r\n/i);
    expect(r.closed).toBe(true);
  });
});
