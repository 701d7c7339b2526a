import { fileURLToPath } from 'node:url';
import { runBin, spawnStdio } from '@mcpkit/protocol-core/testing';
import { describe, expect, it } from 'vitest';

const bin = fileURLToPath(new URL('../dist/index.js', import.meta.url));

/** A client with no capabilities sees the legacy tools minus the two gated ones (listRoots, startElicitation). */
const LEGACY_UNGATED = [
  'echo',
  'add',
  'longRunningOperation',
  'printEnv',
  'sampleLLM',
  'getTinyImage',
  'annotatedMessage',
  'getResourceReference',
  'getResourceLinks',
  'structuredContent',
  'zip',
];

describe('mcp-server-everything (built bin over stdio)', () => {
  it('serves the legacy profile by default, with secrets redacted from printEnv', async () => {
    await using proc = await spawnStdio(bin, { env: { MY_API_KEY: 'sk-not-for-the-model', GREETING: 'hello' } });
    expect(proc.client.getServerVersion()).toMatchObject({ name: 'example-servers/everything', version: '1.0.0' });
    const { tools } = await proc.client.listTools();
    expect(tools.map((t) => t.name)).toEqual(LEGACY_UNGATED);
    const echo = await proc.client.callTool({ name: 'echo', arguments: { message: 'hi' } });
    expect(echo.content).toEqual([{ type: 'text', text: 'Echo: hi' }]);
    const env = await proc.client.callTool({ name: 'printEnv', arguments: {} });
    const text = (env.content as { text: string }[])[0]?.text ?? '';
    expect(text).toContain('"GREETING": "hello"');
    expect(text).toContain('"MY_API_KEY": "[redacted]"');
    expect(text).not.toContain('sk-not-for-the-model');
  });

  it('keeps the reference positional transport (`mcp-server-everything stdio`) and picks a profile by env', async () => {
    await using current = await spawnStdio(bin, { args: ['stdio'], env: { EVERYTHING_PROFILE: 'current' } });
    expect(current.client.getServerVersion()).toMatchObject({ name: 'mcp-servers/everything', version: '2.0.0' });
    expect((await current.client.listTools()).tools.map((t) => t.name)).toContain('get-sum');

    await using conformance = await spawnStdio(bin, { args: ['--profile', 'conformance'] });
    const sum = await conformance.client.callTool({ name: 'test_simple_text', arguments: {} });
    expect(sum.isError).toBeFalsy();
  });

  it('exits 2 with one stderr line for a bad profile or an unknown positional transport', async () => {
    const badProfile = await runBin(bin, { args: ['--profile', 'newest'] });
    expect(badProfile.code).toBe(2);
    expect(badProfile.stdout).toBe('');
    expect(badProfile.stderr.trim()).toBe(
      'mcp-server-everything: invalid value for --profile: "newest" is not one of legacy, current, conformance (see mcp-server-everything --help)',
    );

    const badTransport = await runBin(bin, { args: ['websocket'] });
    expect(badTransport.code).toBe(2);
    expect(badTransport.stderr.trim().split('\n')).toHaveLength(1);
    expect(badTransport.stderr).toContain('unknown transport "websocket" (expected stdio, sse, streamableHttp, or --transport)');
  });
});
