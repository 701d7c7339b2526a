// Both protocol eras from one server: the v2 client in each negotiation mode (legacy → 2025-11-25,
// auto and pinned → 2026-07-28) over Streamable HTTP, and what "this session's history" means in each.
import { type HttpFixture, startHttp, V2_MODES, type V2Mode } from '@mcpkit/protocol-core/testing';
import type { Client } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { createSequentialThinkingServer, HISTORY_URI, type HistorySnapshot } from '../src/server.js';

const ERA = { legacy: 'legacy', auto: 'modern', '2026-07-28': 'modern' } as const;
const HOUR = 60 * 60 * 1000;
const base = { thought: 'a step', thoughtNumber: 1, totalThoughts: 3, nextThoughtNeeded: true };

type Result = { thoughtHistoryLength: number; branches: string[]; thoughtNumber: number };

const think = async (client: Client, args: Record<string, unknown>) => {
  const res = await client.callTool({ name: 'sequentialthinking', arguments: { ...base, ...args } });
  expect(res.isError).toBeFalsy();
  return res.structuredContent as Result;
};
const history = async (client: Client) =>
  JSON.parse(((await client.readResource({ uri: HISTORY_URI })).contents[0] as { text: string }).text) as HistorySnapshot;

const serve = () => startHttp({ createServer: () => createSequentialThinkingServer() });
const connect = (http: HttpFixture, mode: V2Mode) => http.connect({ mode });

describe('the v2 client over Streamable HTTP, every negotiation mode', () => {
  for (const mode of V2_MODES) {
    it(`${mode}: lands on the ${ERA[mode]} era, lists the tool and calls it`, async () => {
      await using http = await serve();
      const client = await connect(http, mode);
      expect(client.getProtocolEra()).toBe(ERA[mode]);
      expect(client.getNegotiatedProtocolVersion()).toBe(mode === 'legacy' ? '2025-11-25' : '2026-07-28');
      expect(client.getServerVersion()).toMatchObject({ name: 'sequential-thinking-server', title: 'Sequential Thinking' });
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(['sequentialthinking']);
      expect(tools[0]!.inputSchema).toMatchObject({
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        required: ['thought', 'nextThoughtNeeded', 'thoughtNumber', 'totalThoughts'],
      });
      // The same coercion of LLM strings in both eras.
      expect(await think(client, { thoughtNumber: '2', totalThoughts: '1', nextThoughtNeeded: 'TRUE' })).toEqual({
        thoughtNumber: 2,
        totalThoughts: 2,
        nextThoughtNeeded: true,
        branches: [],
        thoughtHistoryLength: 1,
      });
      // SDK v2: an unknown tool is a JSON-RPC error, in both eras (v1 answered an isError result).
      await expect(client.callTool({ name: 'nope', arguments: {} })).rejects.toMatchObject({
        code: -32602,
        message: expect.stringContaining('Tool nope not found'),
      });
    });
  }
});

describe('whose history: a 2025 session, or (2026, stateless) one request', () => {
  it('a 2025 session keeps its thoughts across calls and reads them back', async () => {
    await using http = await serve();
    const client = await connect(http, 'legacy');
    await think(client, { thoughtNumber: 1 });
    expect(await think(client, { thoughtNumber: 2, branchFromThought: 1, branchId: 'b' })).toMatchObject({
      thoughtHistoryLength: 2,
      branches: ['b'],
    });
    expect((await history(client)).thoughts.map((t) => t.thoughtNumber)).toEqual([1, 2]);
    expect(http.running.sessionCount()).toBe(1);
  });

  for (const mode of ['auto', '2026-07-28'] as const) {
    it(`${mode}: each request is its own unit; nothing is kept after the answer, nothing crosses clients`, async () => {
      await using http = await serve();
      const a = await connect(http, mode);
      const b = await connect(http, mode);
      expect(await think(a, { thoughtNumber: 1, branchFromThought: 1, branchId: 'a-branch' })).toMatchObject({
        thoughtHistoryLength: 1,
        branches: ['a-branch'],
      });
      // The same client's next call starts from an empty history: there is no session to keep one in.
      expect(await think(a, { thoughtNumber: 2 })).toMatchObject({ thoughtHistoryLength: 1, branches: [] });
      // Another client sees none of a's thoughts.
      expect(await think(b, { thoughtNumber: 1 })).toMatchObject({ thoughtHistoryLength: 1, branches: [] });
      expect(await history(b)).toMatchObject({ thoughts: [], branches: {}, dropped: 0, bytes: 0 });
      expect(http.running.sessionCount()).toBe(0);
    });
  }

  it('2025 sessions and 2026 requests on one endpoint do not see each other', async () => {
    await using http = await serve();
    const old = await connect(http, 'legacy');
    const modern = await connect(http, '2026-07-28');
    await think(old, { thought: 'kept by the session', thoughtNumber: 1 });
    await think(modern, { thought: 'not kept', thoughtNumber: 1 });
    expect(await think(old, { thoughtNumber: 2 })).toMatchObject({ thoughtHistoryLength: 2 });
    expect((await history(old)).thoughts.map((t) => t.thought)).toEqual(['kept by the session', 'a step']);
    expect((await history(modern)).thoughts).toEqual([]);
  });
});

describe('cache hints (2026-07-28)', () => {
  it('discover and the tool and resource lists are cacheable for an hour by anyone; the history read is not', async () => {
    await using http = await serve();
    const client = await connect(http, '2026-07-28');
    expect(client.getDiscoverResult()).toMatchObject({ ttlMs: HOUR, cacheScope: 'public' });
    expect(await client.listTools()).toMatchObject({ ttlMs: HOUR, cacheScope: 'public' });
    expect(await client.listResources()).toMatchObject({ ttlMs: HOUR, cacheScope: 'public' });
    await think(client, {});
    expect(await client.readResource({ uri: HISTORY_URI })).toMatchObject({ ttlMs: 0, cacheScope: 'private' });
  });

  it('a 2025 client gets no cache fields', async () => {
    await using http = await serve();
    const client = await connect(http, 'legacy');
    const list = await client.listTools();
    expect(list).not.toHaveProperty('ttlMs');
    expect(list).not.toHaveProperty('cacheScope');
  });
});
