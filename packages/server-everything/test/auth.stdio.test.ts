/**
 * OAuth smoke test against the built bin over Streamable HTTP (the full suite runs in protocol-core, memory and
 * fetch): 401 without a token; an `everything:use` token calls `echo` in both eras; `get-env` also needs
 * `everything:env` (it shows the server's environment), so the same token gets 403 there.
 */
import { fileURLToPath } from 'node:url';
import { startAuthServer, type TestAuthServer } from '@mcpkit/test-utils/auth';
import { BIN_RESOURCE } from '@mcpkit/test-utils/auth-suite';
import { connectWithToken, type HttpBin, postWithoutToken, spawnHttpBin } from '@mcpkit/test-utils/http-bin';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const bin = fileURLToPath(new URL('../dist/index.js', import.meta.url));
let as: TestAuthServer;
let server: HttpBin;

beforeAll(async () => {
  as = await startAuthServer({ resources: { [BIN_RESOURCE]: { scopes: ['everything:use', 'everything:env', 'everything:network'] } } });
  server = await spawnHttpBin(bin, { args: ['--profile', 'current', '--oauth-issuer', as.issuer, '--oauth-audience', BIN_RESOURCE] });
});
afterAll(async () => {
  await server?.close();
  await as?.close();
});

describe('mcp-server-everything with --oauth-issuer (built bin)', () => {
  it('answers a request without a token 401 with the metadata URL', async () => {
    const response = await postWithoutToken(server.endpoint);
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toContain(
      'resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"',
    );
  });

  for (const kind of ['v2 legacy', 'v2 2026-07-28'] as const) {
    it(`${kind}: an everything:use token calls echo; get-env needs everything:env too`, async () => {
      const token = await as.authorizationCodeToken({ resource: BIN_RESOURCE, scope: 'everything:use', login: 'alice' });
      await using client = await connectWithToken(kind, server.endpoint, token);
      const result = await client.callTool({ name: 'echo', arguments: { message: 'hi' } });
      expect(result.isError).toBeFalsy();
      expect(result.content).toEqual([{ type: 'text', text: 'Echo: hi' }]);
      await expect(client.callTool({ name: 'get-env', arguments: {} })).rejects.toThrow(/403|insufficient_scope|everything:env/);
    });
  }
});
