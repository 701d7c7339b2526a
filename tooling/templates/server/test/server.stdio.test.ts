import { fileURLToPath } from 'node:url';
import { runBin, spawnStdio } from '@mcpkit/protocol-core/testing';
import { describe, expect, it } from 'vitest';

const bin = fileURLToPath(new URL('../dist/index.js', import.meta.url));

describe('mcp-server-$NAME$ (built bin over stdio)', () => {
  it('answers initialize, tools/list and tools/call', async () => {
    await using proc = await spawnStdio(bin, { env: { $ENV$_MAX_MESSAGE_LENGTH: '20' } });
    expect(proc.client.getServerVersion()).toMatchObject({ name: '$NAME$-server' });
    const { tools } = await proc.client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['echo']);
    const res = await proc.client.callTool({ name: 'echo', arguments: { message: 'hi', times: 2 } });
    expect(res.structuredContent).toEqual({ text: 'hi hi', characters: 5 });
    const tooLong = await proc.client.callTool({ name: 'echo', arguments: { message: 'x'.repeat(21) } });
    expect(tooLong.isError).toBe(true);
  });

  it('rejects a bad --max-message-length with exit 2 and one line on stderr', async () => {
    const { code, stdout, stderr } = await runBin(bin, { args: ['--max-message-length', '0'] });
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr.trim()).toBe(
      'mcp-server-$NAME$: invalid value for --max-message-length: 0 is out of range (1..1000000) (see mcp-server-$NAME$ --help)',
    );
  });
});
