/**
 * Both protocol eras from one server: the official v2 client in each negotiation mode (`legacy` →
 * 2025-11-25, `auto` and pinned → 2026-07-28) over Streamable HTTP, and the v1 SDK client (the 2025-era
 * client) beside it. Each lists the tools and calls git_status on a real repository.
 */
import { startHttp, V2_MODES } from '@mcpkit/protocol-core/testing';
import { describe, expect, it } from 'vitest';
import { createGitServer } from '../src/server.js';
import { gitEnv, gitRepo, text } from './helpers.js';

const CLEAN = 'Repository status:\nOn branch master\nnothing to commit, working tree clean';

function app(repo: string) {
  return { createServer: () => createGitServer({ repositories: [repo], env: gitEnv(), home: '/nonexistent-home' }) };
}

describe('Streamable HTTP, both eras', () => {
  it.each(V2_MODES)('the v2 client in %s mode lists the tools and calls git_status', async (mode) => {
    using fx = gitRepo();
    await using http = await startHttp(app(fx.repo));
    const client = await http.connect({ mode });
    expect(client.getProtocolEra()).toBe(mode === 'legacy' ? 'legacy' : 'modern');
    expect(client.getNegotiatedProtocolVersion()).toBe(mode === 'legacy' ? '2025-11-25' : '2026-07-28');
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain('git_status');
    const status = await client.callTool({ name: 'git_status', arguments: { repo_path: fx.repo } });
    expect(status.isError).toBeFalsy();
    expect(text(status)).toBe(CLEAN);
    expect(status.structuredContent).toMatchObject({ branch: 'master', staged: [], unstaged: [], untracked: [] });
  });

  it('the v1 SDK client still gets a session and the same answers', async () => {
    using fx = gitRepo();
    await using http = await startHttp(app(fx.repo));
    const client = await http.connect();
    expect(client.getServerVersion()).toMatchObject({ name: 'mcp-git' });
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('git_status');
    expect(text(await client.callTool({ name: 'git_status', arguments: { repo_path: fx.repo } }))).toBe(CLEAN);
    // SDK v2: an unknown tool is a JSON-RPC error in the 2025 era too (SDK v1 answered an isError result).
    await expect(client.callTool({ name: 'git_nope', arguments: {} })).rejects.toMatchObject({ code: -32602 });
  });

  it('marks the tool list cacheable for 2026 clients (it never changes while the server runs)', async () => {
    using fx = gitRepo();
    await using http = await startHttp(app(fx.repo));
    const body = (id: number, method: string) =>
      JSON.stringify({
        jsonrpc: '2.0',
        id,
        method,
        params: {
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '0' },
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
      });
    const post = async (method: string) => {
      const res = await fetch(http.endpoint, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': method,
        },
        body: body(1, method),
      });
      const raw = await res.text();
      const json = raw.startsWith('{')
        ? raw
        : raw
            .split('\n')
            .find((l) => l.startsWith('data: '))!
            .slice(6);
      return JSON.parse(json) as { result?: Record<string, unknown>; error?: unknown };
    };
    const listed = await post('tools/list');
    expect(listed.error).toBeUndefined();
    expect(listed.result).toMatchObject({ ttlMs: expect.any(Number), cacheScope: 'public' });
    expect(listed.result!.ttlMs as number).toBeGreaterThan(0);
  });
});
