import { MAX_RESULT_BYTES } from '@mcpkit/protocol-core';
import { connectInMemory, invalidArgumentsResult, sendRaw } from '@mcpkit/protocol-core/testing';
import { describe, expect, it } from 'vitest';
import { createMemoryServer, createMemoryStore, KNOWLEDGE_GRAPH_URI } from '../src/server.js';

/** 500 entities of one 10,000-character observation: about 10 MB of answer for a whole read. */
async function bigGraph(count = 500) {
  const pair = await connectInMemory(createMemoryServer({ store: createMemoryStore() }));
  const entities = Array.from({ length: count }, (_, i) => ({
    name: `E${i}`,
    entityType: 'big',
    observations: [`${i} ${'o'.repeat(9_990)}`],
  }));
  for (let start = 0; start < count; start += 250) {
    const part = entities.slice(start, start + 250);
    const created = await pair.client.callTool({ name: 'create_entities', arguments: { entities: part } });
    expect(created.isError, JSON.stringify(created).slice(0, 300)).toBeFalsy();
  }
  return pair;
}

interface Page {
  entities: { name: string }[];
  total?: { entities: number; relations: number };
  nextCursor?: string;
}

describe('answers over the limit', () => {
  it('read_graph without arguments pages a graph over the answer limit, and the pages hold all of it', async () => {
    await using pair = await bigGraph();
    const names: string[] = [];
    let args: Record<string, unknown> = {};
    for (let i = 0; i < 10; i++) {
      const res = await pair.client.callTool({ name: 'read_graph', arguments: args });
      expect(res.isError).toBeFalsy();
      expect(Buffer.byteLength(JSON.stringify(res))).toBeLessThanOrEqual(MAX_RESULT_BYTES);
      const page = res.structuredContent as Page;
      expect(page.total).toEqual({ entities: 500, relations: 0 });
      names.push(...page.entities.map((e) => e.name));
      if (!page.nextCursor) break;
      args = { cursor: page.nextCursor };
    }
    expect(names).toHaveLength(500);
    expect(new Set(names).size).toBe(500);
  });

  it('cuts a limit asked for that would not fit, in search_nodes and open_nodes too', async () => {
    await using pair = await bigGraph();
    const search = await pair.client.callTool({ name: 'search_nodes', arguments: { query: 'oooo', limit: 500 } });
    const found = search.structuredContent as Page;
    expect(found.entities.length).toBeLessThan(500);
    expect(found.nextCursor).toBeDefined();
    const open = await pair.client.callTool({ name: 'open_nodes', arguments: { names: Array.from({ length: 500 }, (_, i) => `E${i}`) } });
    expect((open.structuredContent as Page).nextCursor).toBeDefined();
    // Small reads keep the reference's shape.
    const small = await pair.client.callTool({ name: 'open_nodes', arguments: { names: ['E1'] } });
    expect(Object.keys(small.structuredContent as object)).toEqual(['entities', 'relations']);
  });

  it('refuses the knowledge-graph resource over the limit with a pointer to read_graph, and the session goes on', async () => {
    await using pair = await bigGraph(1000);
    await expect(pair.client.readResource({ uri: KNOWLEDGE_GRAPH_URI })).rejects.toThrow(
      /The knowledge graph is \d+\.\d MiB \(\d+ bytes\) as JSON, over the answer limit of 8\.0 MiB .*read_graph tool/,
    );
    expect((await pair.client.callTool({ name: 'read_graph', arguments: { limit: 1, namesOnly: true } })).isError).toBeFalsy();
  });
});

describe('writes whose echo would be over the limit', () => {
  it('are refused before anything is written', async () => {
    await using pair = await connectInMemory(createMemoryServer({ store: createMemoryStore() }));
    const entities = Array.from({ length: 500 }, (_, i) => ({ name: `E${i}`, entityType: 'big', observations: ['o'.repeat(10_000)] }));
    const res = await pair.client.callTool({ name: 'create_entities', arguments: { entities } });
    expect(res.isError).toBe(true);
    expect((res.content as { text: string }[])[0]!.text).toMatch(
      /^The answer to this call, which echoes what it writes, would be 9\.\d MiB \(\d+ bytes\), over the answer limit of 8\.0 MiB \(8388608 bytes\); nothing was written\. Split the call\.$/,
    );
    const graph = await pair.client.callTool({ name: 'read_graph', arguments: {} });
    expect((graph.structuredContent as Page).entities).toEqual([]);
  });
});

describe('invalid arguments', () => {
  it('a wrong type for a named field gives one line naming it', async () => {
    await using pair = await connectInMemory(createMemoryServer({ store: createMemoryStore() }));
    const res = await pair.client.callTool({ name: 'create_entities', arguments: { entities: 'x' } });
    expect(res).toEqual(invalidArgumentsResult('create_entities', 'entities: Invalid input: expected array, received string'));
  });

  it('arguments that are not an object: -32602 naming the field (SDK v2 lists the issues as JSON)', async () => {
    await using pair = await connectInMemory(createMemoryServer({ store: createMemoryStore() }));
    const error = (await sendRaw(pair.client, 'tools/call', { name: 'read_graph', arguments: 'x' }).catch((e: unknown) => e)) as {
      code: number;
      message: string;
    };
    expect(error.code).toBe(-32602);
    expect(error.message).toMatch(/^Invalid tools\/call request: /);
    expect(JSON.parse(error.message.slice(error.message.indexOf('[')))).toMatchObject([
      { path: ['params', 'arguments'], message: 'Invalid input: expected record, received string' },
    ]);
  });
});
