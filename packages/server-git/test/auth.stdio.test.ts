/**
 * OAuth smoke test against the built bin over Streamable HTTP (the full suite runs in protocol-core, memory and
 * fetch): 401 without a token, a `git:read` token lists and calls git_status in both eras, and a write tool
 * without `git:write` gets 403 insufficient_scope.
 */
import { fileURLToPath } from 'node:url';
import { startAuthServer, type TestAuthServer } from '@mcpkit/test-utils/auth';
import { BIN_RESOURCE } from '@mcpkit/test-utils/auth-suite';
import { connectWithToken, type HttpBin, postWithoutToken, resultText, spawnHttpBin } from '@mcpkit/test-utils/http-bin';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gitEnv, gitRepo, type RepoFixture } from './helpers.js';

const bin = fileURLToPath(new URL('../dist/index.js', import.meta.url));
let as: TestAuthServer;
let server: HttpBin;
let fx: RepoFixture;

beforeAll(async () => {
  fx = gitRepo();
  as = await startAuthServer({ resources: { [BIN_RESOURCE]: { scopes: ['git:read', 'git:write', 'git:remote'] } } });
  server = await spawnHttpBin(bin, { args: ['-r', fx.repo, '--oauth-issuer', as.issuer, '--oauth-audience', BIN_RESOURCE], env: gitEnv() });
});
afterAll(async () => {
  await server?.close();
  await as?.close();
  fx?.[Symbol.dispose]();
});

describe('mcp-server-git with --oauth-issuer (built bin)', () => {
  it('answers a request without a token 401 with the metadata URL', async () => {
    const response = await postWithoutToken(server.endpoint);
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toContain(
      'resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"',
    );
    const metadata = await (await fetch(`${server.url}/.well-known/oauth-protected-resource/mcp`)).json();
    expect([...(metadata as { scopes_supported: string[] }).scopes_supported].sort()).toEqual(['git:read', 'git:remote', 'git:write']);
  });

  for (const kind of ['v2 legacy', 'v2 2026-07-28'] as const) {
    it(`${kind}: a git:read token calls git_status; git_commit needs git:write (403)`, async () => {
      const token = await as.authorizationCodeToken({ resource: BIN_RESOURCE, scope: 'git:read', login: 'alice' });
      await using client = await connectWithToken(kind, server.endpoint, token);
      const status = await client.callTool({ name: 'git_status', arguments: { repo_path: fx.repo } });
      expect(resultText(status)).toBe('Repository status:\nOn branch master\nnothing to commit, working tree clean');
      await expect(client.callTool({ name: 'git_commit', arguments: { repo_path: fx.repo, message: 'x' } })).rejects.toThrow();
    });
  }
});
