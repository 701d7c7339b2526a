import { fileURLToPath } from 'node:url';
import { runBin, spawnStdio } from '@mcpkit/protocol-core/testing';
import { describe, expect, it } from 'vitest';

const bin = fileURLToPath(new URL('../dist/index.js', import.meta.url));

describe('mcp-server-sequential-thinking (built bin over stdio)', () => {
  it('answers tools/list and tools/call and draws the thought on stderr', async () => {
    await using proc = await spawnStdio(bin);
    expect(proc.client.getServerVersion()).toMatchObject({ name: 'sequential-thinking-server' });
    const { tools } = await proc.client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['sequentialthinking']);
    const res = await proc.client.callTool({
      name: 'sequentialthinking',
      arguments: { thought: 'Plan the work', thoughtNumber: '1', totalThoughts: '2', nextThoughtNeeded: 'true' },
    });
    expect(res.structuredContent).toEqual({
      thoughtNumber: 1,
      totalThoughts: 2,
      nextThoughtNeeded: true,
      branches: [],
      thoughtHistoryLength: 1,
    });
    await new Promise((r) => setTimeout(r, 100));
    expect(proc.stderr()).toContain('│ Plan the work');
  });

  it('honours DISABLE_THOUGHT_LOGGING and --max-history', async () => {
    await using proc = await spawnStdio(bin, { args: ['--max-history', '2'], env: { DISABLE_THOUGHT_LOGGING: 'true' } });
    let last: unknown;
    for (let i = 1; i <= 4; i++) {
      last = (
        await proc.client.callTool({
          name: 'sequentialthinking',
          arguments: { thought: `t${i}`, thoughtNumber: i, totalThoughts: 4, nextThoughtNeeded: i < 4 },
        })
      ).structuredContent;
    }
    expect(last).toMatchObject({ thoughtHistoryLength: 2 });
    expect(proc.stderr()).not.toContain('│ t1');
  });

  it('rejects a bad --max-history with exit 2', async () => {
    const { code, stdout, stderr } = await runBin(bin, { args: ['--max-history', '0'] });
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr.trim()).toBe(
      'mcp-server-sequential-thinking: invalid value for --max-history: 0 is out of range (1..1000000) (see mcp-server-sequential-thinking --help)',
    );
  });
});
