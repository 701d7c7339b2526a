/**
 * Reading needs the read scope, as calling a reading tool does: `resources/list`, `resources/read`,
 * `resources/subscribe` and 2026 `subscriptions/listen` without the server's resource scope get 403
 * `insufficient_scope` naming it, in both eras, against tokens minted by a real authorization server.
 */

import { startAuthServer, type TestAuthServer } from '@mcpkit/test-utils/auth';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newV2Client } from '../../src/testing/index.ts';
import { INIT, INITIALIZED, raw, sessionHeaders } from '../fixtures/rawHttp.ts';
import { bearer, type Protected, SECRET_URI, serveProtected } from './protectedApp.ts';

const SCOPES = ['test:read', 'test:write'];
const resources: Record<string, { scopes: string[] }> = { 'http://127.0.0.1:1/unused': { scopes: SCOPES } };
let as: TestAuthServer;
let server: Protected;

beforeAll(async () => {
  as = await startAuthServer({ resources });
  server = await serveProtected(as);
  resources[server.resource] = { scopes: SCOPES };
});
afterAll(async () => {
  await server?.http[Symbol.asyncDispose]();
  await as?.close();
});

/** A 2025 session opened with `token`; returns a sender of one request on it. */
async function session(token: string) {
  const init = await raw(server.http.url, { headers: bearer(token), body: INIT });
  expect(init.status).toBe(200);
  const headers = { ...bearer(token), ...sessionHeaders(String(init.headers['mcp-session-id'])) };
  expect((await raw(server.http.url, { headers, body: INITIALIZED })).status).toBe(202);
  return (method: string, params: object = {}) => raw(server.http.url, { headers, body: { jsonrpc: '2.0', id: 2, method, params } });
}

function insufficientScope(response: { status: number; headers: Record<string, unknown>; body: string }) {
  expect(response.status).toBe(403);
  expect(String(response.headers['www-authenticate'])).toMatch(/error="insufficient_scope"/);
  expect(String(response.headers['www-authenticate'])).toMatch(/scope="test:read"/);
  expect(JSON.parse(response.body)).toMatchObject({
    error: 'insufficient_scope',
    error_description: 'this call needs the scope test:read',
  });
}

describe('2025 sessions', () => {
  it('a token without the read scope cannot list, read or subscribe to resources; one with it can', async () => {
    const writer = await session(await as.clientCredentialsToken({ resource: server.resource, scope: 'test:write' }));
    insufficientScope(await writer('resources/read', { uri: SECRET_URI }));
    insufficientScope(await writer('resources/subscribe', { uri: SECRET_URI }));
    insufficientScope(await writer('resources/list'));
    // Listing tools needs no scope, as before.
    expect((await writer('tools/list')).status).toBe(200);

    const reader = await session(await as.clientCredentialsToken({ resource: server.resource, scope: 'test:read' }));
    const read = await reader('resources/read', { uri: SECRET_URI });
    expect(read.status).toBe(200);
    expect(read.body).toContain('the shared secret');
    expect((await reader('resources/subscribe', { uri: SECRET_URI })).status).toBe(200);
  });
});

describe('2026-07-28', () => {
  it('a token without the read scope cannot read a resource or open a listen stream; one with it can', async () => {
    const endpoint = new URL(server.http.endpoint);
    const writerToken = await as.clientCredentialsToken({ resource: server.resource, scope: 'test:write' });
    const writer = newV2Client({ mode: '2026-07-28' });
    await writer.connect(new StreamableHTTPClientTransport(endpoint, { requestInit: { headers: bearer(writerToken) } }));
    const readerToken = await as.clientCredentialsToken({ resource: server.resource, scope: 'test:read' });
    const reader = newV2Client({ mode: '2026-07-28' });
    await reader.connect(new StreamableHTTPClientTransport(endpoint, { requestInit: { headers: bearer(readerToken) } }));
    try {
      expect(writer.getProtocolEra()).toBe('modern');
      await expect(writer.readResource({ uri: SECRET_URI })).rejects.toThrow();
      await expect(writer.listen({ resourceSubscriptions: [SECRET_URI] })).rejects.toThrow();
      expect((await reader.readResource({ uri: SECRET_URI })).contents).toEqual([
        { uri: SECRET_URI, mimeType: 'text/plain', text: 'the shared secret' },
      ]);
      const stream = await reader.listen({ resourceSubscriptions: [SECRET_URI] });
      expect(stream.honoredFilter).toEqual({ resourceSubscriptions: [SECRET_URI] });
      await stream.close();
    } finally {
      await Promise.allSettled([writer.close(), reader.close()]);
    }
    // On the wire: the listen request itself is refused before the SDK sees it.
    const listen = await raw(server.http.url, {
      headers: { ...bearer(writerToken), 'mcp-protocol-version': '2026-07-28' },
      body: { jsonrpc: '2.0', id: 9, method: 'subscriptions/listen', params: { filter: { resourceSubscriptions: [SECRET_URI] } } },
    });
    insufficientScope(listen);
  });
});
