// The built bin over stdio in both protocol eras: the v2 client in each negotiation mode, and the v1 SDK
// client (the 2025-era client). Over stdio the history belongs to the connection, i.e. the process, in
// either era: a 2026 client's thoughts are kept across its calls as a 2025 client's are.
import { fileURLToPath } from 'node:url';
import { spawnStdio, V2_MODES } from '@mcpkit/protocol-core/testing';
import { describe, expect, it } from 'vitest';

const bin = fileURLToPath(new URL('../dist/index.js', import.meta.url));
const ERA = { legacy: 'legacy', auto: 'modern', '2026-07-28': 'modern' } as const;
const env = { DISABLE_THOUGHT_LOGGING: 'true' };
const args = (n: number, extra: Record<string, unknown> = {}) => ({
  name: 'sequentialthinking',
  arguments: { thought: `step ${n}`, thoughtNumber: n, totalThoughts: 3, nextThoughtNeeded: n < 3, ...extra },
});

describe('the v2 client over stdio, every negotiation mode', () => {
  for (const mode of V2_MODES) {
    it(`${mode}: lands on the ${ERA[mode]} era, lists and calls the tool, and keeps the connection's history`, async () => {
      await using proc = await spawnStdio(bin, { mode, env });
      expect(proc.client.getProtocolEra()).toBe(ERA[mode]);
      expect(proc.client.getServerVersion()).toMatchObject({ name: 'sequential-thinking-server' });
      const { tools } = await proc.client.listTools();
      expect(tools.map((t) => t.name)).toEqual(['sequentialthinking']);
      expect((await proc.client.callTool(args(1))).structuredContent).toMatchObject({ thoughtHistoryLength: 1 });
      expect((await proc.client.callTool(args(2, { branchFromThought: 1, branchId: 'b' }))).structuredContent).toEqual({
        thoughtNumber: 2,
        totalThoughts: 3,
        nextThoughtNeeded: true,
        branches: ['b'],
        thoughtHistoryLength: 2,
      });
      const read = await proc.client.readResource({ uri: 'sequentialthinking://history' });
      const snapshot = JSON.parse((read.contents[0] as { text: string }).text) as { thoughts: { thought: string }[] };
      expect(snapshot.thoughts.map((t) => t.thought)).toEqual(['step 1', 'step 2']);
    });
  }

  it('2026-07-28: tool and resource lists carry the cache hints, the history read does not', async () => {
    await using proc = await spawnStdio(bin, { mode: '2026-07-28', env });
    expect(proc.client.getDiscoverResult()).toMatchObject({ ttlMs: 3_600_000, cacheScope: 'public' });
    expect(await proc.client.listTools()).toMatchObject({ ttlMs: 3_600_000, cacheScope: 'public' });
    expect(await proc.client.readResource({ uri: 'sequentialthinking://history' })).toMatchObject({ ttlMs: 0, cacheScope: 'private' });
  });

  it('2026-07-28: invalid arguments get the v2 validation text', async () => {
    await using proc = await spawnStdio(bin, { mode: '2026-07-28', env });
    const res = await proc.client.callTool({ name: 'sequentialthinking', arguments: { ...args(1).arguments, thoughtNumber: 0 } });
    expect(res).toMatchObject({
      isError: true,
      content: [
        {
          type: 'text',
          text: 'Input validation error: Invalid arguments for tool sequentialthinking: thoughtNumber: Too small: expected number to be >=1',
        },
      ],
    });
  });
});

describe('the v1 SDK client (2025-11-25) over stdio', () => {
  it('still lists and calls the tool, with the history of its session', async () => {
    await using proc = await spawnStdio(bin, { env });
    const { tools } = await proc.client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['sequentialthinking']);
    await proc.client.callTool(args(1));
    expect((await proc.client.callTool(args(2))).structuredContent).toMatchObject({ thoughtHistoryLength: 2 });
  });
});
