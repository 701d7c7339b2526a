// Three replicas (in-process HTTP servers, each with its own pool) on one PostgreSQL database behind a round-robin
// balancer: a 2026-07-28 client's chain continues whichever replica answers; a 2025 client, pinned to one replica
// (sticky sessions), keeps today's per-session history and texts.
import { connectHttpV2, type HttpFixture, startHttp } from '@mcpkit/protocol-core/testing';
import { startBalancer } from '@mcpkit/test-utils/balancer';
import { freshDatabase, postgresUrl } from '@mcpkit/test-utils/postgres-fixture';
import type { Client } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { openPostgresChains } from '../../src/chains/postgresChains.js';
import { createSequentialThinkingApp } from '../../src/server.js';

const limits = { maxHistory: 1000, maxHistoryBytes: 8 * 1024 * 1024 };

async function replicas(url: string): Promise<HttpFixture[] & AsyncDisposable> {
  const servers: HttpFixture[] = [];
  for (let i = 0; i < 3; i++) {
    const app = createSequentialThinkingApp({ ...limits, chains: openPostgresChains({ ...limits, url, poolSize: 2 }) });
    servers.push(await startHttp(app));
  }
  return Object.assign(servers, {
    [Symbol.asyncDispose]: async () => {
      await Promise.all(servers.map((s) => s[Symbol.asyncDispose]()));
    },
  });
}

const call = async (client: Client, args: Record<string, unknown>) => {
  const res = await client.callTool({ name: 'sequentialthinking', arguments: args });
  expect(res.isError).toBeFalsy();
  const text = (res.content as { text: string }[])[0]!.text;
  expect(JSON.parse(text)).toEqual(res.structuredContent);
  return { text, data: res.structuredContent as Record<string, unknown> };
};

describe.runIf(postgresUrl() !== undefined)('three replicas round robin on one PostgreSQL', () => {
  it('2026-07-28: thoughtHistoryLength 1…10 across replicas, by the thoughtChain handle', async () => {
    await using db = await freshDatabase();
    await using servers = await replicas(db.url);
    await using balancer = await startBalancer(servers.map((s) => s.endpoint));
    await using connected = await connectHttpV2(balancer.endpoint, { mode: 'auto' });
    const { client } = connected;
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    let chain: string | undefined;
    const lengths: number[] = [];
    const before = balancer.served.length;
    for (let n = 1; n <= 10; n++) {
      const { data } = await call(client, {
        thought: `step ${n}`,
        thoughtNumber: n,
        totalThoughts: 10,
        nextThoughtNeeded: n < 10,
        ...(n === 3 ? { branchFromThought: 2, branchId: 'alt' } : {}),
        ...(chain ? { thoughtChain: chain } : {}),
      });
      if (chain) expect(data.thoughtChain).toBe(chain);
      chain = data.thoughtChain as string;
      lengths.push(data.thoughtHistoryLength as number);
      expect(data.branches).toEqual(n >= 3 ? ['alt'] : []);
    }
    expect(lengths).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    // The ten calls went to all three replicas in turn.
    expect(new Set(balancer.served.slice(before))).toEqual(new Set([0, 1, 2]));
    // Without the handle, a thought starts a new chain.
    const fresh = await call(client, { thought: 'anew', thoughtNumber: 1, totalThoughts: 1, nextThoughtNeeded: false });
    expect(fresh.data).toMatchObject({ thoughtHistoryLength: 1 });
    expect(fresh.data.thoughtChain).not.toBe(chain);
  });

  it('2025 through a sticky session (one replica): the history and texts of today', async () => {
    await using db = await freshDatabase();
    await using servers = await replicas(db.url);
    await using connected = await connectHttpV2(servers[1]!.endpoint, { mode: 'legacy' });
    const { client } = connected;
    const texts: string[] = [];
    for (let n = 1; n <= 10; n++) {
      const { text, data } = await call(client, { thought: `step ${n}`, thoughtNumber: n, totalThoughts: 10, nextThoughtNeeded: n < 10 });
      expect(data).not.toHaveProperty('thoughtChain');
      texts.push(text);
    }
    expect(texts[9]).toBe(
      JSON.stringify({ thoughtNumber: 10, totalThoughts: 10, nextThoughtNeeded: false, branches: [], thoughtHistoryLength: 10 }, null, 2),
    );
    expect(texts.map((t) => JSON.parse(t).thoughtHistoryLength)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    const { tools } = await client.listTools();
    expect(Object.keys(tools[0]!.inputSchema.properties ?? {})).not.toContain('thoughtChain');
  });
});
