/**
 * The 2026-07-28 era: `subscriptions/listen` on the graph resource over loopback HTTP (fed by `listenToGraph`, as
 * the runner wires it over HTTP), cache hints, and an unknown resource as -32602 in both eras.
 */
import { connectV2InMemory, startHttp } from '@mcpkit/protocol-core/testing';
import { describe, expect, it } from 'vitest';
import { createMemoryServer, createMemoryStore, type GraphStore, KNOWLEDGE_GRAPH_URI, listenToGraph } from '../src/server.js';

/** `store`, counting the watches open on it. */
function countingWatches(store: GraphStore): { store: GraphStore; open(): number } {
  let open = 0;
  const counted: GraphStore = Object.create(store);
  counted.watch = () => {
    open++;
    const stop = store.watch();
    return () => {
      open--;
      stop();
    };
  };
  return { store: counted, open: () => open };
}

/**
 * A pinned 2026 client over real Streamable HTTP on loopback (protocol-core's runner), with the process's listen
 * bus as the bin wires it. A real socket: closing a listen stream is seen by the server as the connection closing.
 */
async function modern(store: GraphStore) {
  const listen = listenToGraph(store);
  const http = await startHttp({ createServer: () => createMemoryServer({ store }), bus: listen.bus });
  const client = await http.connectV2({ mode: '2026-07-28' });
  return {
    client,
    listen,
    async [Symbol.asyncDispose]() {
      await http[Symbol.asyncDispose]();
      listen.close();
    },
  };
}

const create = (name: string) => ({ name: 'create_entities', arguments: { entities: [{ name, entityType: 't', observations: [] }] } });

describe('subscriptions/listen (2026-07-28)', () => {
  it('a listener on the graph hears each write, and the graph it re-reads has it', async () => {
    const { store, open } = countingWatches(createMemoryStore());
    await using s = await modern(store);
    expect(s.client.getProtocolEra()).toBe('modern');
    const heard: string[] = [];
    s.client.setNotificationHandler('notifications/resources/updated', (n) => void heard.push(n.params.uri));
    expect(open()).toBe(0);

    const sub = await s.client.listen({ resourceSubscriptions: [KNOWLEDGE_GRAPH_URI], resourcesListChanged: true });
    expect(sub.honoredFilter).toEqual({ resourceSubscriptions: [KNOWLEDGE_GRAPH_URI], resourcesListChanged: true });
    expect(open()).toBe(1); // other processes' writes are watched for while someone listens
    expect((await s.client.callTool(create('Ada'))).isError).toBeFalsy();
    await expect.poll(() => heard, { timeout: 10_000 }).toEqual([KNOWLEDGE_GRAPH_URI]);
    const read = await s.client.readResource({ uri: KNOWLEDGE_GRAPH_URI });
    expect((read.contents[0] as { text: string }).text).toContain('"Ada"');

    // A read or a no-op is no change.
    await s.client.callTool({ name: 'read_graph', arguments: {} });
    await s.client.callTool(create('Ada'));
    await new Promise((r) => setTimeout(r, 50));
    expect(heard).toHaveLength(1);

    await sub.close();
    expect(await sub.closed).toBe('local');
    await expect.poll(() => open(), { timeout: 10_000 }).toBe(0);
    await s.client.callTool(create('Bob'));
    await new Promise((r) => setTimeout(r, 50));
    expect(heard).toHaveLength(1);
  });

  it('a listener on another URI, or on tool list changes only, hears nothing of a write', async () => {
    await using s = await modern(createMemoryStore());
    const heard: string[] = [];
    s.client.setNotificationHandler('notifications/resources/updated', (n) => void heard.push(n.params.uri));
    const other = await s.client.listen({ resourceSubscriptions: ['memory://other'], toolsListChanged: true });
    expect(other.honoredFilter).toEqual({ resourceSubscriptions: ['memory://other'], toolsListChanged: true });
    await s.client.callTool(create('Ada'));
    await new Promise((r) => setTimeout(r, 50));
    expect(heard).toEqual([]);
    await other.close();
  });
});

describe('cache hints (2026-07-28)', () => {
  it('the tool list may be cached by anyone; the graph resource is never cacheable', async () => {
    await using s = await modern(createMemoryStore());
    const tools = (await s.client.listTools()) as { ttlMs?: number; cacheScope?: string };
    expect(tools.cacheScope).toBe('public');
    expect(tools.ttlMs).toBeGreaterThan(0);
    const graph = (await s.client.readResource({ uri: KNOWLEDGE_GRAPH_URI })) as { ttlMs?: number; cacheScope?: string };
    expect(graph).toMatchObject({ ttlMs: 0, cacheScope: 'private' });
  });
});

describe('unknown names', () => {
  for (const mode of ['legacy', '2026-07-28'] as const) {
    it(`an unknown resource is -32602 (resource not found) for a ${mode} client`, async () => {
      await using pair = await connectV2InMemory(() => createMemoryServer({ store: createMemoryStore() }), { mode });
      await expect(pair.client.readResource({ uri: 'memory://nothing-here' })).rejects.toMatchObject({
        code: -32602,
        message: expect.stringContaining('Resource not found: memory://nothing-here'),
      });
    });

    it(`an unknown tool is a -32602 error, not an isError result, for a ${mode} client`, async () => {
      await using pair = await connectV2InMemory(() => createMemoryServer({ store: createMemoryStore() }), { mode });
      await expect(pair.client.callTool({ name: 'nope', arguments: {} })).rejects.toMatchObject({
        code: -32602,
        message: expect.stringContaining('Tool nope not found'),
      });
    });
  }
});
