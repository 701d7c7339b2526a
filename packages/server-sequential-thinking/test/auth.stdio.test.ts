/**
 * OAuth smoke test against the built bin over Streamable HTTP (the full suite runs in protocol-core, memory and
 * fetch): 401 without a token, a `thinking:use` token records a thought in both eras, a token without it gets 403.
 */
import { fileURLToPath } from 'node:url';
import { startAuthServer, type TestAuthServer } from '@mcpkit/test-utils/auth';
import { BIN_RESOURCE } from '@mcpkit/test-utils/auth-suite';
import { connectWithToken, type HttpBin, postWithoutToken, spawnHttpBin } from '@mcpkit/test-utils/http-bin';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const bin = fileURLToPath(new URL('../dist/index.js', import.meta.url));
const thought = { thought: 'First', thoughtNumber: 1, totalThoughts: 2, nextThoughtNeeded: true };
let as: TestAuthServer;
let server: HttpBin;

beforeAll(async () => {
  as = await startAuthServer({ resources: { [BIN_RESOURCE]: { scopes: ['thinking:use', 'other:scope'] } } });
  server = await spawnHttpBin(bin, { args: ['--oauth-issuer', as.issuer, '--oauth-audience', BIN_RESOURCE] });
});
afterAll(async () => {
  await server?.close();
  await as?.close();
});

describe('mcp-server-sequential-thinking with --oauth-issuer (built bin)', () => {
  it('answers a request without a token 401 with the metadata URL', async () => {
    const response = await postWithoutToken(server.endpoint);
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toContain(
      'resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"',
    );
  });

  for (const kind of ['v2 legacy', 'v2 2026-07-28'] as const) {
    it(`${kind}: a thinking:use token records a thought; a token without it gets 403`, async () => {
      const token = await as.authorizationCodeToken({ resource: BIN_RESOURCE, scope: 'thinking:use', login: 'alice' });
      await using client = await connectWithToken(kind, server.endpoint, token);
      const result = await client.callTool({ name: 'sequentialthinking', arguments: thought });
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toMatchObject({
        thoughtNumber: 1,
        totalThoughts: 2,
        nextThoughtNeeded: true,
        thoughtHistoryLength: 1,
      });
      const other = await as.authorizationCodeToken({ resource: BIN_RESOURCE, scope: 'other:scope', login: 'alice' });
      await using denied = await connectWithToken(kind, server.endpoint, other);
      await expect(denied.callTool({ name: 'sequentialthinking', arguments: thought })).rejects.toThrow();
    });
  }

  it("v2 2026-07-28: a thought chain is its user's; another user's token gets the unknown-chain error", async () => {
    const alice = await as.authorizationCodeToken({ resource: BIN_RESOURCE, scope: 'thinking:use', login: 'alice' });
    const bob = await as.authorizationCodeToken({ resource: BIN_RESOURCE, scope: 'thinking:use', login: 'bob' });
    await using a = await connectWithToken('v2 2026-07-28', server.endpoint, alice);
    await using b = await connectWithToken('v2 2026-07-28', server.endpoint, bob);
    const first = await a.callTool({ name: 'sequentialthinking', arguments: thought });
    const handle = (first.structuredContent as { thoughtChain: string }).thoughtChain;
    const next = { ...thought, thoughtNumber: 2, thoughtChain: handle };
    const stolen = await b.callTool({ name: 'sequentialthinking', arguments: next });
    expect(stolen).toMatchObject({
      isError: true,
      content: [{ text: expect.stringMatching(/^thoughtChain: no thought chain of yours has this handle/) }],
    });
    expect((await a.callTool({ name: 'sequentialthinking', arguments: next })).structuredContent).toMatchObject({
      thoughtHistoryLength: 2,
      thoughtChain: handle,
    });
  });
});
