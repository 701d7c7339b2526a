/**
 * The built bin in both protocol eras, over stdio and over Streamable HTTP (`--transport http`): the official
 * v2 client in each negotiation mode (`legacy` → 2025-11-25, `auto` and pinned → 2026-07-28) lists the tools
 * and calls git_status on a real repository. The v1 SDK client over stdio is in server.stdio.test.ts (the same checks: expectServesReferenceTexts).
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { connectHttpV2, spawnStdio, V2_MODES } from '@mcpkit/protocol-core/testing';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { expectServesReferenceTexts, gitEnv, gitRepo, text } from './helpers.js';

const bin = fileURLToPath(new URL('../dist/index.js', import.meta.url));

describe('mcp-server-git (built bin over stdio), both eras', () => {
  it.each(V2_MODES)('the v2 client in %s mode lists the tools and calls git_status', async (mode) => {
    using fx = gitRepo();
    await using proc = await spawnStdio(bin, { mode, args: ['-r', fx.repo], env: gitEnv() });
    expect(proc.client.getProtocolEra()).toBe(mode === 'legacy' ? 'legacy' : 'modern');
    expect(proc.client.getServerVersion()).toMatchObject({ name: 'mcp-git' });
    await expectServesReferenceTexts(proc.client, fx.repo);
  });

  it('answers an unknown tool with JSON-RPC -32602 in the 2026 era', async () => {
    using fx = gitRepo();
    await using proc = await spawnStdio(bin, { mode: '2026-07-28', args: ['-r', fx.repo], env: gitEnv() });
    await expect(proc.client.callTool({ name: 'git_nope', arguments: {} })).rejects.toMatchObject({ code: -32602 });
  });
});

/** Starts the bin with `--transport http --port 0` and returns its endpoint (from the "listening on" line). */
async function serveBinHttp(args: string[]): Promise<{ endpoint: string } & AsyncDisposable> {
  const child = spawn(process.execPath, [bin, '--transport', 'http', '--port', '0', ...args], {
    env: gitEnv(),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  const endpoint = await new Promise<string>((resolve, reject) => {
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
      const match = / listening on (http:\/\/\S+)/.exec(stderr);
      if (match) resolve(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`the bin exited (${code}): ${stderr}`)));
  });
  return {
    endpoint,
    async [Symbol.asyncDispose]() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

const CLEAN = 'Repository status:\nOn branch master\nnothing to commit, working tree clean';

describe('mcp-server-git (built bin over Streamable HTTP), both eras', () => {
  it('the v2 client in every mode, and the v1 SDK client, list the tools and call git_status', async () => {
    using fx = gitRepo();
    await using server = await serveBinHttp(['-r', fx.repo]);
    for (const mode of V2_MODES) {
      await using conn = await connectHttpV2(server.endpoint, { mode });
      expect(conn.client.getProtocolEra(), mode).toBe(mode === 'legacy' ? 'legacy' : 'modern');
      expect(
        (await conn.client.listTools()).tools.map((t) => t.name),
        mode,
      ).toContain('git_status');
      const status = await conn.client.callTool({ name: 'git_status', arguments: { repo_path: fx.repo } });
      expect(text(status), mode).toBe(CLEAN);
    }
    const v1 = new Client({ name: 'v1', version: '0.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(server.endpoint));
    await v1.connect(transport);
    try {
      expect(transport.sessionId).toBeTruthy();
      expect((await v1.listTools()).tools.map((t) => t.name)).toContain('git_status');
      expect(text(await v1.callTool({ name: 'git_status', arguments: { repo_path: fx.repo } }))).toBe(CLEAN);
    } finally {
      await v1.close();
    }
  });
});
