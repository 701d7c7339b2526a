/**
 * The 2026-07-28 era: `subscriptions/listen` on the graph resource over loopback HTTP (fed by `listenToGraph`, as
 * the runner wires it over HTTP; with `--graph-per-user`, by `listenToUserGraphs`, each user hearing their own graph
 * under real OAuth tokens), cache hints, and an unknown resource as -32602 in both eras.
 */
import { authGuardFor, connectV2InMemory, startHttp } from '@mcpkit/protocol-core/testing';
import { startAuthServer, type TestAuthServer } from '@mcpkit/test-utils/auth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MEMORY_SCOPES } from '../src/scopes.js';
import {
  createMemoryServer,
  createMemoryStore,
  createUserGraphs,
  type GraphStore,
  KNOWLEDGE_GRAPH_URI,
  listenToGraph,
  listenToUserGraphs,
} from '../src/server.js';

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
  const client = await http.connect({ mode: '2026-07-28' });
  return {
    client,
    listen,
    async [Symbol.asyncDispose]() {
      await http[Symbol.asyncDispose]();
      listen.close();
    },
  };
}

/**
 * Publishes a list-changed marker on the process's listen bus and waits until the client has it: one stream
 * carries the bus's events in order, so whatever it sent before the marker has arrived by then.
 */
async function flushed(s: Awaited<ReturnType<typeof modern>>, marker: 'resources' | 'tools'): Promise<void> {
  let arrived = false;
  const method = marker === 'resources' ? 'notifications/resources/list_changed' : 'notifications/tools/list_changed';
  s.client.setNotificationHandler(method, () => {
    arrived = true;
  });
  if (marker === 'resources') s.listen.notify.resourcesChanged();
  else s.listen.notify.toolsChanged();
  await expect.poll(() => arrived).toBe(true);
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
    await flushed(s, 'resources');
    expect(heard).toHaveLength(1);

    await sub.close();
    expect(await sub.closed).toBe('local');
    await expect.poll(() => open(), { timeout: 10_000 }).toBe(0);
    // The stream is closed: only the call's own answer stream could carry an update, and it comes before the answer.
    await s.client.callTool(create('Bob'));
    expect(heard).toHaveLength(1);
  });

  it('a listener on another URI, or on tool list changes only, hears nothing of a write', async () => {
    await using s = await modern(createMemoryStore());
    const heard: string[] = [];
    s.client.setNotificationHandler('notifications/resources/updated', (n) => void heard.push(n.params.uri));
    const other = await s.client.listen({ resourceSubscriptions: ['memory://other'], toolsListChanged: true });
    expect(other.honoredFilter).toEqual({ resourceSubscriptions: ['memory://other'], toolsListChanged: true });
    await s.client.callTool(create('Ada'));
    await flushed(s, 'tools');
    expect(heard).toEqual([]);
    await other.close();
  });
});

describe('subscriptions/listen with --graph-per-user (2026-07-28, OAuth)', () => {
  const RESOURCE = 'https://mcp.example.com/mcp';
  let as: TestAuthServer;
  beforeAll(async () => {
    as = await startAuthServer({ resources: { [RESOURCE]: { scopes: ['memory:read', 'memory:write'] } } });
  });
  afterAll(async () => {
    await as?.close();
  });

  /** The runner with the auth guard in front of a per-user memory app, wired as the bin wires it. */
  async function perUser() {
    const guard = await authGuardFor(['--oauth-issuer', as.issuer, '--oauth-audience', RESOURCE], { scopes: MEMORY_SCOPES });
    const watchCounts = new Map<string, () => number>();
    const users = createUserGraphs({
      open: async (key) => {
        const { store, open } = countingWatches(createMemoryStore());
        watchCounts.set(key, open);
        return store;
      },
    });
    const listen = listenToUserGraphs(users);
    const http = await startHttp(
      { createServer: () => createMemoryServer({ users }), listenBus: listen.busFor, scopes: MEMORY_SCOPES },
      { auth: guard },
    );
    return {
      http,
      listen,
      /** Open watches on each user's graph, in the order the graphs were opened. */
      watches: () => [...watchCounts.values()].map((open) => open()),
      async [Symbol.asyncDispose]() {
        await http[Symbol.asyncDispose]();
        listen.close();
        await users.close();
        await guard.close();
      },
    };
  }

  async function signIn(s: Awaited<ReturnType<typeof perUser>>, login: string) {
    const token = await as.authorizationCodeToken({ resource: RESOURCE, scope: 'memory:read memory:write', login });
    const client = await s.http.connect({ mode: '2026-07-28', headers: { Authorization: `Bearer ${token}` } });
    const heard: string[] = [];
    client.setNotificationHandler('notifications/resources/updated', (n) => void heard.push(n.params.uri));
    return { client, heard };
  }

  it("each user's listener hears that user's writes and never another user's", async () => {
    await using s = await perUser();
    const alice = await signIn(s, 'alice');
    const bob = await signIn(s, 'bob');
    expect(alice.client.getProtocolEra()).toBe('modern');
    const aliceSub = await alice.client.listen({ resourceSubscriptions: [KNOWLEDGE_GRAPH_URI] });
    const bobSub = await bob.client.listen({ resourceSubscriptions: [KNOWLEDGE_GRAPH_URI] });
    expect(aliceSub.honoredFilter).toEqual({ resourceSubscriptions: [KNOWLEDGE_GRAPH_URI] });
    expect(s.listen.listeningUsers()).toBe(2);

    // Each write is published on the bus before its call returns, and a stream delivers in order: when a
    // listener hears its own user's later write, an earlier write of the other user would have come first.
    expect((await bob.client.callTool(create('Bob 1'))).isError).toBeFalsy();
    expect((await alice.client.callTool(create('Alice 1'))).isError).toBeFalsy();
    await expect.poll(() => alice.heard, { timeout: 10_000 }).toEqual([KNOWLEDGE_GRAPH_URI]);
    await expect.poll(() => bob.heard, { timeout: 10_000 }).toEqual([KNOWLEDGE_GRAPH_URI]);
    expect((await bob.client.callTool(create('Bob 2'))).isError).toBeFalsy();
    await expect.poll(() => bob.heard, { timeout: 10_000 }).toHaveLength(2);
    expect((await alice.client.callTool(create('Alice 2'))).isError).toBeFalsy();
    await expect.poll(() => alice.heard, { timeout: 10_000 }).toHaveLength(2);
    expect(bob.heard).toHaveLength(2);

    // What a listener re-reads is its own graph.
    const read = await alice.client.readResource({ uri: KNOWLEDGE_GRAPH_URI });
    expect((read.contents[0] as { text: string }).text).toContain('"Alice 2"');
    expect((read.contents[0] as { text: string }).text).not.toContain('Bob');

    // Each listening user's graph is watched (for other processes' writes) until their stream closes.
    expect(s.watches()).toEqual([1, 1]);
    await aliceSub.close();
    await expect.poll(() => s.listen.listeningUsers(), { timeout: 10_000 }).toBe(1);
    await expect.poll(() => s.watches().sort(), { timeout: 10_000 }).toEqual([0, 1]);
    await bobSub.close();
    await expect.poll(() => s.watches(), { timeout: 10_000 }).toEqual([0, 0]);
  });

  it('a listener whose token names no user (client credentials) hears no graph', async () => {
    await using s = await perUser();
    const token = await as.clientCredentialsToken({ resource: RESOURCE, scope: 'memory:read memory:write' });
    const service = await s.http.connect({ mode: '2026-07-28', headers: { Authorization: `Bearer ${token}` } });
    const heard: string[] = [];
    service.setNotificationHandler('notifications/resources/updated', (n) => void heard.push(n.params.uri));
    const sub = await service.listen({ resourceSubscriptions: [KNOWLEDGE_GRAPH_URI] });
    const alice = await signIn(s, 'alice');
    const aliceSub = await alice.client.listen({ resourceSubscriptions: [KNOWLEDGE_GRAPH_URI] });
    await alice.client.callTool(create('Alice'));
    await expect.poll(() => alice.heard, { timeout: 10_000 }).toEqual([KNOWLEDGE_GRAPH_URI]);
    expect(heard).toEqual([]);
    expect(s.listen.listeningUsers()).toBe(1);
    await Promise.all([sub.close(), aliceSub.close()]);
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
