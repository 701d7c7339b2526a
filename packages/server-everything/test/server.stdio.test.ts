import { fileURLToPath } from 'node:url';
import { runBin, spawnStdio } from '@mcpkit/protocol-core/testing';
import { describe, expect, it } from 'vitest';
import { LEGACY_UNGATED_TOOLS } from './legacy/toolNames.js';

const bin = fileURLToPath(new URL('../dist/index.js', import.meta.url));

describe('mcp-server-everything (built bin over stdio)', () => {
  it('serves the current profile (the reference npm latest, kebab-case tools) by default', async () => {
    await using proc = await spawnStdio(bin);
    expect(proc.client.getServerVersion()).toMatchObject({ name: 'mcp-servers/everything', version: '2.0.0' });
    const names = (await proc.client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['echo', 'get-sum', 'get-env', 'get-tiny-image']));
    expect(names.filter((n) => /[A-Z]/.test(n))).toEqual([]);
    const sum = await proc.client.callTool({ name: 'get-sum', arguments: { a: 2, b: 3 } });
    expect(sum.content).toEqual([{ type: 'text', text: 'The sum of 2 and 3 is 5.' }]);
  });

  it('serves the legacy profile with --profile legacy, with secrets redacted from printEnv', async () => {
    await using proc = await spawnStdio(bin, {
      args: ['--profile', 'legacy'],
      env: { MY_API_KEY: 'sk-not-for-the-model', GREETING: 'hello' },
    });
    expect(proc.client.getServerVersion()).toMatchObject({ name: 'example-servers/everything', version: '1.0.0' });
    const { tools } = await proc.client.listTools();
    expect(tools.map((t) => t.name)).toEqual(LEGACY_UNGATED_TOOLS);
    const echo = await proc.client.callTool({ name: 'echo', arguments: { message: 'hi' } });
    expect(echo.content).toEqual([{ type: 'text', text: 'Echo: hi' }]);
    const env = await proc.client.callTool({ name: 'printEnv', arguments: {} });
    const text = (env.content as { text: string }[])[0]?.text ?? '';
    expect(text).toContain('"GREETING": "hello"');
    expect(text).toContain('"MY_API_KEY": "[redacted]"');
    expect(text).not.toContain('sk-not-for-the-model');
  });

  it('keeps the reference positional transport (`mcp-server-everything stdio`) and picks a profile by env', async () => {
    await using legacy = await spawnStdio(bin, { args: ['stdio'], env: { EVERYTHING_PROFILE: 'legacy' } });
    expect(legacy.client.getServerVersion()).toMatchObject({ name: 'example-servers/everything', version: '1.0.0' });
    expect((await legacy.client.listTools()).tools.map((t) => t.name)).toContain('printEnv');

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
