// The built bin with --storage postgres: three processes on one database behind a round-robin balancer continue one
// 2026 client's thought chain; the flags' mistakes exit 2 with one line naming the flag.
import { fileURLToPath } from 'node:url';
import { connectHttpV2, runBin } from '@mcpkit/protocol-core/testing';
import { startBalancer } from '@mcpkit/test-utils/balancer';
import { type HttpBin, spawnHttpBin } from '@mcpkit/test-utils/http-bin';
import { freshDatabase, postgresUrl } from '@mcpkit/test-utils/postgres-fixture';
import { describe, expect, it } from 'vitest';

const bin = fileURLToPath(new URL('../../dist/index.js', import.meta.url));

describe('the built bin and --storage', () => {
  it('refuses --storage postgres without --database-url, and --database-url without it', async () => {
    const missing = await runBin(bin, { args: ['--storage', 'postgres'] });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--storage postgres needs --database-url or SEQUENTIAL_THINKING_DATABASE_URL');
    const stray = await runBin(bin, { args: ['--database-url', 'postgres://u:hunter2@127.0.0.1:1/db'] });
    expect(stray.code).toBe(2);
    expect(stray.stderr).toContain('--database-url needs --storage postgres');
    expect(stray.stderr).not.toContain('hunter2');
  });

  it.runIf(postgresUrl() !== undefined)('three bin replicas on one database continue a 2026 chain round robin', async () => {
    await using db = await freshDatabase();
    const replicas: HttpBin[] = [];
    try {
      for (let i = 0; i < 3; i++) {
        replicas.push(
          await spawnHttpBin(bin, {
            args: ['--storage', 'postgres', '--disable-thought-logging'],
            env: { SEQUENTIAL_THINKING_DATABASE_URL: db.url },
          }),
        );
      }
      await using balancer = await startBalancer(replicas.map((r) => r.endpoint));
      await using connected = await connectHttpV2(balancer.endpoint, { mode: '2026-07-28' });
      let chain: string | undefined;
      const lengths: number[] = [];
      for (let n = 1; n <= 6; n++) {
        const res = await connected.client.callTool({
          name: 'sequentialthinking',
          arguments: {
            thought: `step ${n}`,
            thoughtNumber: n,
            totalThoughts: 6,
            nextThoughtNeeded: n < 6,
            ...(chain ? { thoughtChain: chain } : {}),
          },
        });
        expect(res.isError).toBeFalsy();
        const data = res.structuredContent as { thoughtHistoryLength: number; thoughtChain: string };
        chain = data.thoughtChain;
        lengths.push(data.thoughtHistoryLength);
      }
      expect(lengths).toEqual([1, 2, 3, 4, 5, 6]);
      expect(new Set(balancer.served)).toEqual(new Set([0, 1, 2]));
      for (const r of replicas) expect(r.stderr()).not.toContain(chain);
    } finally {
      await Promise.all(replicas.map((r) => r.close()));
    }
  });
});
