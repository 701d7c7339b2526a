import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { connectInMemory } from '@mcpkit/protocol-core/testing';
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
import { call, testAcceptance, updates } from './acceptanceSuite.js';
import { referenceLoad, tempDir } from './helpers.js';

async function session(store: GraphStore = createMemoryStore(), limits?: Partial<Limits>) {
  const pair = await connectInMemory(createMemoryServer({ store, ...(limits ? { limits } : {}) }));
  return { client: pair.client, store, [Symbol.asyncDispose]: () => pair[Symbol.asyncDispose]() };
}

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
      $schema: 'https://json-schema.org/draft/2020-12/schema',
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

testAcceptance('memory', async () => {
  const store = createMemoryStore();
  return { store, [Symbol.asyncDispose]: () => store.close() };
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
      await expect.poll(() => seen).toEqual([KNOWLEDGE_GRAPH_URI]); // found by the store's poll, with no call of ours
      expect((await call(s.client, 'open_nodes', { names: ['Elsewhere'] })).structuredContent).toMatchObject({
        entities: [{ name: 'Elsewhere' }],
      });
    }
    await mine.close();
    await other.close();
  });
});
