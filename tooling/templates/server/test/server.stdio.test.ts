import { fileURLToPath } from 'node:url';
import { runBin, spawnStdio, V2_MODES } from '@mcpkit/protocol-core/testing';
import { describe, expect, it } from 'vitest';

const bin = fileURLToPath(new URL('../dist/index.js', import.meta.url));
const VERSION = { legacy: '2025-11-25', auto: '2026-07-28', '2026-07-28': '2026-07-28' } as const;

describe('mcp-server-$NAME$ (built bin over stdio)', () => {
  it('answers initialize, tools/list and tools/call (the v1 SDK client: 2025-11-25)', async () => {
    await using proc = await spawnStdio(bin, { env: { $ENV$_MAX_MESSAGE_LENGTH: '20' } });
    expect(proc.client.getServerVersion()).toMatchObject({ name: '$NAME$-server' });
    const { tools } = await proc.client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['echo']);
    const res = await proc.client.callTool({ name: 'echo', arguments: { message: 'hi', times: 2 } });
    expect(res.structuredContent).toEqual({ text: 'hi hi', characters: 5 });
    const tooLong = await proc.client.callTool({ name: 'echo', arguments: { message: 'x'.repeat(21) } });
    expect(tooLong.isError).toBe(true);
  });

  // The v2 client in each negotiation mode: one binary speaks both eras (auto probes on a short-lived extra process).
  for (const mode of V2_MODES) {
    it(`the v2 client in ${mode} mode speaks ${VERSION[mode]}, lists and calls echo`, async () => {
      await using proc = await spawnStdio(bin, { mode, env: { $ENV$_MAX_MESSAGE_LENGTH: '20' } });
      expect(proc.client.getNegotiatedProtocolVersion()).toBe(VERSION[mode]);
      expect(proc.client.getServerVersion()).toMatchObject({ name: '$NAME$-server' });
      const { tools } = await proc.client.listTools();
      expect(tools.map((t) => t.name)).toEqual(['echo']);
      const res = await proc.client.callTool({ name: 'echo', arguments: { message: 'hi', times: 2 } });
      expect(res.structuredContent).toEqual({ text: 'hi hi', characters: 5 });
      const tooLong = await proc.client.callTool({ name: 'echo', arguments: { message: 'x'.repeat(21) } });
      expect(tooLong.isError).toBe(true);
    });
  }

  it('rejects a bad --max-message-length with exit 2 and one line on stderr', async () => {
    const { code, stdout, stderr } = await runBin(bin, { args: ['--max-message-length', '0'] });
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr.trim()).toBe(
      'mcp-server-$NAME$: invalid value for --max-message-length: 0 is out of range (1..1000000) (see mcp-server-$NAME$ --help)',
    );
  });
});
