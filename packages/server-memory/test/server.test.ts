import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { connectInMemory, startHttp } from '@mcpkit/protocol-core/testing';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import {
  createMemoryServer,
  createMemoryStore,
  type GraphStore,
  KNOWLEDGE_GRAPH_URI,
  type Limits,
  openFileStore,
  VERSION,
} from '../src/server.js';
import { referenceLoad, tempDir } from './helpers.js';

async function session(store: GraphStore = createMemoryStore(), limits?: Partial<Limits>) {
  const pair = await connectInMemory(createMemoryServer({ store, ...(limits ? { limits } : {}) }));
  return { client: pair.client, store, [Symbol.asyncDispose]: () => pair[Symbol.asyncDispose]() };
}

type TextResult = { content: { type: string; text: string }[]; isError?: boolean; structuredContent?: Record<string, unknown> };
async function call(client: Client, name: string, args: Record<string, unknown>): Promise<TextResult> {
  return (await client.callTool({ name, arguments: args })) as TextResult;
}
const text = (r: TextResult) => r.content[0]!.text;

function updates(client: Client): string[] {
  const seen: string[] = [];
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
    seen.push(n.params.uri);
  });
  return seen;
}
const tick = () => new Promise((r) => setTimeout(r, 20));

const entity = {
  type: 'object',
  properties: {
    name: { type: 'string', description: 'The name of the entity' },
    entityType: { type: 'string', description: 'The type of the entity' },
    observations: { type: 'array', items: { type: 'string' }, description: 'An array of observation contents associated with the entity' },
  },
  required: ['name', 'entityType', 'observations'],
};
const relation = {
  type: 'object',
  properties: {
    from: { type: 'string', description: 'The name of the entity where the relation starts' },
    to: { type: 'string', description: 'The name of the entity where the relation ends' },
    relationType: { type: 'string', description: 'The type of the relation' },
  },
  required: ['from', 'to', 'relationType'],
};

describe('initialize', () => {
  it('names the server as the reference does, with its version and a title', async () => {
    await using s = await session();
    expect(s.client.getServerVersion()).toEqual({ name: 'memory-server', version: VERSION, title: 'Knowledge Graph Memory' });
  });
});

describe('tools/list (drop-in contract, §3.5)', () => {
  it('lists the nine tools in reference order with titles, descriptions and annotations', async () => {
    await using s = await session();
    const { tools } = await s.client.listTools();
    const ro = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
    const add = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };
    const del = { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false };
    expect(tools.map((t) => [t.name, t.title, t.description, t.annotations])).toEqual([
      ['create_entities', 'Create Entities', 'Create multiple new entities in the knowledge graph', { title: 'Create Entities', ...add }],
      [
        'create_relations',
        'Create Relations',
        'Create multiple new relations between entities in the knowledge graph. Relations should be in active voice',
        { title: 'Create Relations', ...add },
      ],
      [
        'add_observations',
        'Add Observations',
        'Add new observations to existing entities in the knowledge graph',
        { title: 'Add Observations', ...add },
      ],
      [
        'delete_entities',
        'Delete Entities',
        'Delete multiple entities and their associated relations from the knowledge graph',
        { title: 'Delete Entities', ...del },
      ],
      [
        'delete_observations',
        'Delete Observations',
        'Delete specific observations from entities in the knowledge graph',
        { title: 'Delete Observations', ...del },
      ],
      ['delete_relations', 'Delete Relations', 'Delete multiple relations from the knowledge graph', { title: 'Delete Relations', ...del }],
      ['read_graph', 'Read Graph', 'Read the entire knowledge graph', { title: 'Read Graph', ...ro }],
      ['search_nodes', 'Search Nodes', 'Search for nodes in the knowledge graph based on a query', { title: 'Search Nodes', ...ro }],
      ['open_nodes', 'Open Nodes', 'Open specific nodes in the knowledge graph by their names', { title: 'Open Nodes', ...ro }],
    ]);
  });

  it('has the reference input schemas for the write tools, exactly', async () => {
    await using s = await session();
    const byName = Object.fromEntries((await s.client.listTools()).tools.map((t) => [t.name, t]));
    const schema = (properties: Record<string, unknown>) => ({
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties,
      required: Object.keys(properties),
    });
    expect(byName.create_entities!.inputSchema).toEqual(schema({ entities: { type: 'array', items: entity } }));
    expect(byName.create_relations!.inputSchema).toEqual(schema({ relations: { type: 'array', items: relation } }));
    expect(byName.add_observations!.inputSchema).toEqual(
      schema({
        observations: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              entityName: { type: 'string', description: 'The name of the entity to add the observations to' },
              contents: { type: 'array', items: { type: 'string' }, description: 'An array of observation contents to add' },
            },
            required: ['entityName', 'contents'],
          },
        },
      }),
    );
    expect(byName.delete_entities!.inputSchema).toEqual(
      schema({ entityNames: { type: 'array', items: { type: 'string' }, description: 'An array of entity names to delete' } }),
    );
    expect(byName.delete_relations!.inputSchema).toEqual(
      schema({ relations: { type: 'array', items: relation, description: 'An array of relations to delete' } }),
    );
    expect(byName.create_entities!.outputSchema).toMatchObject({
      properties: { entities: { type: 'array', items: { ...entity, additionalProperties: false } } },
      additionalProperties: false,
    });
    expect(byName.delete_entities!.outputSchema).toMatchObject({
      properties: { success: { type: 'boolean' }, message: { type: 'string' } },
      required: ['success', 'message'],
    });
  });

  it('read tools keep their required arguments and add only optional ones', async () => {
    await using s = await session();
    const byName = Object.fromEntries((await s.client.listTools()).tools.map((t) => [t.name, t]));
    expect(byName.read_graph!.inputSchema.required ?? []).toEqual([]);
    expect(byName.search_nodes!.inputSchema.required).toEqual(['query']);
    expect(byName.search_nodes!.inputSchema.properties!.query).toEqual({
      type: 'string',
      description: 'The search query to match against entity names, types, and observation content',
    });
    expect(byName.open_nodes!.inputSchema.required).toEqual(['names']);
    for (const name of ['read_graph', 'search_nodes', 'open_nodes']) {
      expect(Object.keys(byName[name]!.inputSchema.properties!)).toEqual(expect.arrayContaining(['limit', 'cursor', 'namesOnly']));
      expect(byName[name]!.outputSchema!.required).toEqual(['entities', 'relations']);
    }
  });
});

describe('tool results (reference texts)', () => {
  it('create_entities / create_relations: text is the JSON array of what was created', async () => {
    await using s = await session();
    const e = { name: 'Alice', entityType: 'person', observations: ['likes tea'] };
    const r1 = await call(s.client, 'create_entities', { entities: [e] });
    expect(text(r1)).toBe(JSON.stringify([e], null, 2));
    expect(r1.structuredContent).toEqual({ entities: [e] });
    expect(text(await call(s.client, 'create_entities', { entities: [e] }))).toBe('[]');
    const rel = { from: 'Alice', to: 'Bob', relationType: 'knows' };
    const r2 = await call(s.client, 'create_relations', { relations: [rel] });
    expect(text(r2)).toBe(JSON.stringify([rel], null, 2));
    expect(r2.structuredContent).toEqual({ relations: [rel] });
  });

  it('add_observations: results, and the exact error for an unknown entity with nothing saved', async () => {
    await using s = await session();
    await call(s.client, 'create_entities', { entities: [{ name: 'Alice', entityType: 'person', observations: [] }] });
    const ok = await call(s.client, 'add_observations', { observations: [{ entityName: 'Alice', contents: ['x'] }] });
    expect(text(ok)).toBe(JSON.stringify([{ entityName: 'Alice', addedObservations: ['x'] }], null, 2));
    expect(ok.structuredContent).toEqual({ results: [{ entityName: 'Alice', addedObservations: ['x'] }] });
    const bad = await call(s.client, 'add_observations', {
      observations: [
        { entityName: 'Alice', contents: ['y'] },
        { entityName: 'NonExistent', contents: ['z'] },
      ],
    });
    expect(bad).toEqual({ content: [{ type: 'text', text: 'Entity with name NonExistent not found' }], isError: true });
    expect((await s.store.openNodes(['Alice'])).entities[0]).toMatchObject({ observations: ['x'] });
  });

  it('delete tools answer with the reference messages', async () => {
    await using s = await session();
    for (const [tool, args, message] of [
      ['delete_entities', { entityNames: ['x'] }, 'Entities deleted successfully'],
      ['delete_observations', { deletions: [{ entityName: 'x', observations: ['y'] }] }, 'Observations deleted successfully'],
      ['delete_relations', { relations: [{ from: 'a', to: 'b', relationType: 'c' }] }, 'Relations deleted successfully'],
    ] as const) {
      const r = await call(s.client, tool, args);
      expect(text(r)).toBe(message);
      expect(r.structuredContent).toEqual({ success: true, message });
    }
  });

  it('read_graph / search_nodes / open_nodes: the graph JSON, reference shape without page arguments', async () => {
    await using s = await session();
    const e = { name: 'Alice', entityType: 'person', observations: ['likes tea'] };
    const rel = { from: 'Alice', to: 'Bob', relationType: 'knows' };
    await s.store.createEntities([e]);
    await s.store.createRelations([rel]);
    const graph = { entities: [e], relations: [rel] };
    for (const [tool, args] of [
      ['read_graph', {}],
      ['search_nodes', { query: 'TEA' }],
      ['open_nodes', { names: ['Alice'] }],
    ] as const) {
      const r = await call(s.client, tool, args);
      expect(text(r)).toBe(JSON.stringify(graph, null, 2));
      expect(r.structuredContent).toEqual(graph);
    }
  });

  it('validation errors come from the SDK in the reference form; extra fields are stripped', async () => {
    await using s = await session();
    const r = await call(s.client, 'create_entities', {});
    expect(r.isError).toBe(true);
    expect(text(r)).toBe(
      'MCP error -32602: Input validation error: Invalid arguments for tool create_entities: Invalid input: expected array, received undefined at entities',
    );
    await call(s.client, 'create_entities', { entities: [{ name: 'A', entityType: 't', observations: [], extra: 1 }] });
    expect((await s.store.readGraph()).entities).toEqual([{ name: 'A', entityType: 't', observations: [] }]);
  });
});

describe('input caps', () => {
  it('refuse over-long names, types, observations and too many items, naming the field; nothing is saved', async () => {
    await using s = await session(createMemoryStore(), { maxNameLength: 5, maxObservationLength: 8, maxItemsPerCall: 3 });
    const cases: [string, Record<string, unknown>, string][] = [
      [
        'create_entities',
        {
          entities: [
            { name: 'ok', entityType: 't', observations: [] },
            { name: 'toolong', entityType: 't', observations: [] },
          ],
        },
        'entities[1].name is 7 characters long; at most 5 are allowed',
      ],
      [
        'create_entities',
        { entities: [{ name: 'ok', entityType: 'person', observations: [] }] },
        'entities[0].entityType is 6 characters long; at most 5 are allowed',
      ],
      [
        'create_entities',
        { entities: [{ name: 'ok', entityType: 't', observations: ['a', 'way too long'] }] },
        'entities[0].observations[1] is 12 characters long; at most 8 are allowed',
      ],
      [
        'create_entities',
        { entities: Array.from({ length: 4 }, (_, i) => ({ name: `e${i}`, entityType: 't', observations: [] })) },
        'Too many entities in one call: 4; at most 3 are allowed. Split the call.',
      ],
      [
        'create_relations',
        { relations: [{ from: 'a', to: 'b', relationType: 'verylong' }] },
        'relations[0].relationType is 8 characters long; at most 5 are allowed',
      ],
      [
        'add_observations',
        { observations: [{ entityName: 'ok', contents: ['1', '2', '3', '4'] }] },
        'Too many observations in one call: 4; at most 3 are allowed. Split the call.',
      ],
      [
        'add_observations',
        { observations: [{ entityName: 'ok', contents: ['123456789'] }] },
        'observations[0].contents[0] is 9 characters long; at most 8 are allowed',
      ],
    ];
    for (const [tool, args, message] of cases) {
      const r = await call(s.client, tool, args);
      expect(r).toEqual({ content: [{ type: 'text', text: message }], isError: true });
    }
    const g = await s.store.readGraph();
    expect([g.entities.length, g.relations.length]).toEqual([0, 0]);
  });
});

describe('bounded reads (mcpkit addition)', () => {
  it('limit + cursor walk the whole graph, say the totals, and stop with no nextCursor', async () => {
    await using s = await session();
    await s.store.createEntities(Array.from({ length: 7 }, (_, i) => ({ name: `E${i}`, entityType: 't', observations: ['o'] })));
    await s.store.createRelations(Array.from({ length: 3 }, (_, i) => ({ from: `E${i}`, to: `E${i + 1}`, relationType: 'next' })));
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const r = await call(s.client, 'read_graph', { limit: 4, ...(cursor ? { cursor } : {}) });
      const data = r.structuredContent as { entities: { name: string }[]; relations: unknown[]; total: unknown; nextCursor?: string };
      expect(JSON.parse(text(r))).toEqual(data);
      expect(data.total).toEqual({ entities: 7, relations: 3 });
      seen.push(...data.entities.map((e) => e.name), ...data.relations.map(() => 'rel'));
      cursor = data.nextCursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual(['E0', 'E1', 'E2', 'E3', 'E4', 'E5', 'E6', 'rel', 'rel', 'rel']);
  });

  it('namesOnly gives names and types only; search and open page too', async () => {
    await using s = await session();
    await s.store.createEntities([
      { name: 'Alice', entityType: 'person', observations: ['a long biography'] },
      { name: 'Alan', entityType: 'person', observations: [] },
    ]);
    const r = await call(s.client, 'search_nodes', { query: 'al', namesOnly: true, limit: 1 });
    expect(r.structuredContent).toMatchObject({
      entities: [{ name: 'Alice', entityType: 'person' }],
      relations: [],
      total: { entities: 2, relations: 0 },
      nextCursor: expect.any(String),
    });
    expect((r.structuredContent as { entities: object[] }).entities[0]).not.toHaveProperty('observations');
    const next = await call(s.client, 'search_nodes', { query: 'al', namesOnly: true, limit: 1, cursor: r.structuredContent!.nextCursor });
    expect(next.structuredContent).toEqual({
      entities: [{ name: 'Alan', entityType: 'person' }],
      relations: [],
      total: { entities: 2, relations: 0 },
    });
    const o = await call(s.client, 'open_nodes', { names: ['Alan', 'Alice'], limit: 10 });
    expect(o.structuredContent).toMatchObject({ total: { entities: 2, relations: 0 } });
    expect(o.structuredContent).not.toHaveProperty('nextCursor');
  });

  it('refuses a forged cursor or one from another query', async () => {
    await using s = await session();
    await s.store.createEntities(Array.from({ length: 3 }, (_, i) => ({ name: `E${i}`, entityType: 't', observations: [] })));
    const r = await call(s.client, 'search_nodes', { query: 'e', limit: 1 });
    const cursor = r.structuredContent!.nextCursor as string;
    for (const [tool, args] of [
      ['search_nodes', { query: 'other', cursor }],
      ['read_graph', { cursor }],
      ['read_graph', { cursor: 'not-a-cursor' }],
    ] as const) {
      const bad = await call(s.client, tool, args);
      expect(bad.isError).toBe(true);
      expect(text(bad)).toMatch(/^Invalid cursor: pass the nextCursor of the previous result unchanged/);
    }
    const badLimit = await call(s.client, 'read_graph', { limit: 0 });
    expect(text(badLimit)).toMatch(/^MCP error -32602: Input validation error: .*at limit/);
  });
});

describe('resource and subscriptions (upstream resource.test.ts, §6.8)', () => {
  it('1-2. lists and reads memory://knowledge-graph as the graph JSON', async () => {
    await using s = await session();
    await s.store.createEntities([{ name: 'A', entityType: 't', observations: [] }]);
    const { resources } = await s.client.listResources();
    expect(resources).toEqual([
      {
        uri: 'memory://knowledge-graph',
        name: 'knowledge-graph',
        title: 'Knowledge Graph',
        description: 'The full knowledge graph with all entities and relations',
        mimeType: 'application/json',
      },
    ]);
    expect((await s.client.listResourceTemplates()).resourceTemplates).toEqual([]);
    const read = await s.client.readResource({ uri: KNOWLEDGE_GRAPH_URI });
    expect(read.contents).toHaveLength(1);
    expect(read.contents[0]).toMatchObject({ uri: KNOWLEDGE_GRAPH_URI, mimeType: 'application/json' });
    expect(JSON.parse((read.contents[0] as { text: string }).text)).toEqual({
      entities: [{ name: 'A', entityType: 't', observations: [] }],
      relations: [],
    });
  });

  it('3-5. declares subscribe, and subscribe/unsubscribe answer {} for any URI', async () => {
    await using s = await session();
    expect(s.client.getServerCapabilities()?.resources).toMatchObject({ subscribe: true, listChanged: true });
    expect(await s.client.subscribeResource({ uri: KNOWLEDGE_GRAPH_URI })).toEqual({});
    expect(await s.client.unsubscribeResource({ uri: KNOWLEDGE_GRAPH_URI })).toEqual({});
    expect(await s.client.subscribeResource({ uri: 'memory://other' })).toEqual({});
  });

  it('notifies subscribers after each mutation that changed the graph, not after reads, failures or no-ops', async () => {
    await using s = await session();
    const seen = updates(s.client);
    const e = { name: 'A', entityType: 't', observations: [] };
    await call(s.client, 'create_entities', { entities: [e] });
    await tick();
    expect(seen).toEqual([]); // not subscribed yet
    await s.client.subscribeResource({ uri: KNOWLEDGE_GRAPH_URI });
    await call(s.client, 'create_relations', { relations: [{ from: 'A', to: 'B', relationType: 'r' }] });
    await call(s.client, 'add_observations', { observations: [{ entityName: 'A', contents: ['x'] }] });
    await call(s.client, 'delete_observations', { deletions: [{ entityName: 'A', observations: ['x'] }] });
    await call(s.client, 'delete_relations', { relations: [{ from: 'A', to: 'B', relationType: 'r' }] });
    await tick();
    expect(seen).toHaveLength(4);
    await call(s.client, 'create_entities', { entities: [e] }); // exists: nothing changed
    await call(s.client, 'add_observations', { observations: [{ entityName: 'Nope', contents: ['x'] }] }); // fails
    await call(s.client, 'read_graph', {});
    await tick();
    expect(seen).toHaveLength(4);
    await call(s.client, 'delete_entities', { entityNames: ['A'] });
    await tick();
    expect(seen).toEqual(Array(5).fill(KNOWLEDGE_GRAPH_URI));
    await s.client.unsubscribeResource({ uri: KNOWLEDGE_GRAPH_URI });
    await call(s.client, 'create_entities', { entities: [e] });
    await tick();
    expect(seen).toHaveLength(5);
  });

  it('over HTTP, sessions share the store and only subscribed sessions are notified', async () => {
    const store = createMemoryStore();
    await using http = await startHttp({ createServer: () => createMemoryServer({ store }) });
    const a = await http.connect();
    const b = await http.connect();
    const seenA = updates(a);
    const seenB = updates(b);
    await a.subscribeResource({ uri: KNOWLEDGE_GRAPH_URI });
    await call(b, 'create_entities', { entities: [{ name: 'FromB', entityType: 't', observations: [] }] });
    await new Promise((r) => setTimeout(r, 100));
    expect(seenA).toEqual([KNOWLEDGE_GRAPH_URI]);
    expect(seenB).toEqual([]);
    expect((await call(a, 'open_nodes', { names: ['FromB'] })).structuredContent).toMatchObject({ entities: [{ name: 'FromB' }] });
  });
});

describe('with the file store', () => {
  it('a tool call is on disk, in the reference format, when it answers', async () => {
    using dir = tempDir();
    const path = join(dir.path, 'memory.jsonl');
    const store = await openFileStore({ path });
    {
      await using s = await session(store);
      await call(s.client, 'create_entities', { entities: [{ name: 'A', entityType: 't', observations: ['o'] }] });
      expect(referenceLoad(readFileSync(path, 'utf8'))).toEqual({
        entities: [{ name: 'A', entityType: 't', observations: ['o'] }],
        relations: [],
      });
    }
    await store.close();
  });

  it('notifies a subscriber when another process changed the file', async () => {
    using dir = tempDir();
    const path = join(dir.path, 'memory.jsonl');
    const mine = await openFileStore({ path, pollMs: 20 });
    const other = await openFileStore({ path });
    {
      await using s = await session(mine);
      const seen = updates(s.client);
      await s.client.subscribeResource({ uri: KNOWLEDGE_GRAPH_URI });
      await other.createEntities([{ name: 'Elsewhere', entityType: 't', observations: [] }]);
      await new Promise((r) => setTimeout(r, 200));
      expect(seen).toEqual([KNOWLEDGE_GRAPH_URI]);
      expect((await call(s.client, 'open_nodes', { names: ['Elsewhere'] })).structuredContent).toMatchObject({
        entities: [{ name: 'Elsewhere' }],
      });
    }
    await mine.close();
    await other.close();
  });
});
