/**
 * The memory acceptance tests that are not about the file: real clients against the real server. Call
 * `testAcceptance(name, open)` from a store's own test file to run them in-process (`connectInMemory`, the v2
 * client) over any `GraphStore`, `open` giving a fresh, empty graph each time; or
 * `testAcceptanceOn(name, target)` to run them through connections of another kind (`acceptanceTarget.ts`).
 */
import { startHttp } from '@mcpkit/protocol-core/testing';
import { describe, expect, it } from 'vitest';
import { createMemoryServer, KNOWLEDGE_GRAPH_URI, type Limits } from '../src/server.js';
import { type AcceptanceTarget, inProcessTarget, type McpClient, updates } from './acceptanceTarget.js';
import type { StoreFixture } from './storeSuite.js';

export { updates } from './acceptanceTarget.js';

export type TextResult = {
  content: { type: string; text: string }[];
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
};
/** The tool's result; without the server info a 2026-07-28 server adds to every result's `_meta` (the envelope, not the tool's answer). */
export async function call(client: McpClient, name: string, args: Record<string, unknown>): Promise<TextResult> {
  const result = (await client.callTool({ name, arguments: args })) as TextResult;
  if (!result._meta || !('io.modelcontextprotocol/serverInfo' in result._meta)) return result;
  const { 'io.modelcontextprotocol/serverInfo': _serverInfo, ...meta } = result._meta;
  const { _meta, ...rest } = result;
  return Object.keys(meta).length > 0 ? { ...rest, _meta: meta } : rest;
}
export const text = (r: TextResult) => r.content[0]!.text;

/** The limits the input-caps test runs with (a target of built bins starts a server with these flags). */
export const CAPS: Limits = { maxNameLength: 5, maxObservationLength: 8, maxItemsPerCall: 3 };

/** The suite in-process, over the stores `open` gives. */
export function testAcceptance(name: string, open: () => Promise<StoreFixture>): void {
  testAcceptanceOn(name, inProcessTarget(open));
}

export function testAcceptanceOn(name: string, target: AcceptanceTarget): void {
  const session = (limits?: Partial<Limits>) => target.session(limits);
  const { open } = target;

  describe(`acceptance: ${name}`, () => {
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
          'Input validation error: Invalid arguments for tool create_entities: entities: Invalid input: expected array, received undefined',
        );
        await call(s.client, 'create_entities', { entities: [{ name: 'A', entityType: 't', observations: [], extra: 1 }] });
        expect((await s.store.readGraph()).entities).toEqual([{ name: 'A', entityType: 't', observations: [] }]);
      });
    });

    describe('input caps', () => {
      it('refuse over-long names, types, observations and too many items, naming the field; nothing is saved', async () => {
        await using s = await session(CAPS);
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
        const next = await call(s.client, 'search_nodes', {
          query: 'al',
          namesOnly: true,
          limit: 1,
          cursor: r.structuredContent!.nextCursor,
        });
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
        expect(text(badLimit)).toMatch(/^Input validation error: Invalid arguments for tool read_graph: limit: /);
      });
    });

    describe('resource and subscriptions (upstream resource.test.ts, §6.8)', () => {
      it('1-2. lists and reads memory://knowledge-graph as the graph JSON', async () => {
        await using s = await session();
        await s.store.createEntities([{ name: 'A', entityType: 't', observations: [] }]);
        // A 2026-07-28 client also sees the server's skill (skill://…, SEP-2640; test/skills.test.ts checks it).
        const { resources } = await s.client.listResources();
        expect((resources as { uri: string }[]).filter((r) => !r.uri.startsWith('skill://'))).toEqual([
          {
            uri: 'memory://knowledge-graph',
            name: 'knowledge-graph',
            title: 'Knowledge Graph',
            description: 'The full knowledge graph with all entities and relations',
            mimeType: 'application/json',
          },
        ]);
        const { resourceTemplates } = await s.client.listResourceTemplates();
        expect((resourceTemplates as { uriTemplate: string }[]).filter((t) => !t.uriTemplate.startsWith('skill://'))).toEqual([]);
        const read = await s.client.readResource({ uri: KNOWLEDGE_GRAPH_URI });
        expect(read.contents).toHaveLength(1);
        expect(read.contents[0]).toMatchObject({ uri: KNOWLEDGE_GRAPH_URI, mimeType: 'application/json' });
        expect(JSON.parse((read.contents[0] as { text: string }).text)).toEqual({
          entities: [{ name: 'A', entityType: 't', observations: [] }],
          relations: [],
        });
      });

      // A 2025 client subscribes on its session; a 2026 client listens (`resources/subscribe` is not in that era).
      if (target.era === '2025-11-25')
        it('3-5. declares subscribe, and subscribe/unsubscribe answer {} for any URI (on stateless replicas: why not)', async () => {
          await using s = await session();
          expect(s.client.getServerCapabilities()?.resources).toMatchObject({ subscribe: true, listChanged: true });
          const client = s.client as McpClient & {
            subscribeResource(p: { uri: string }): Promise<unknown>;
            unsubscribeResource(p: { uri: string }): Promise<unknown>;
          };
          if (!target.hearsUpdates) {
            // Stateless replicas: a subscription would never be heard, and the server says so instead of answering {}.
            const why = 'this server runs --stateless: subscriptions need a session or a 2026 listen stream';
            await expect(client.subscribeResource({ uri: KNOWLEDGE_GRAPH_URI })).rejects.toThrow(why);
            await expect(client.unsubscribeResource({ uri: KNOWLEDGE_GRAPH_URI })).rejects.toThrow(why);
            return;
          }
          expect(await client.subscribeResource({ uri: KNOWLEDGE_GRAPH_URI })).toEqual({});
          expect(await client.unsubscribeResource({ uri: KNOWLEDGE_GRAPH_URI })).toEqual({});
          expect(await client.subscribeResource({ uri: 'memory://other' })).toEqual({});
        });

      if (target.era === '2026-07-28')
        it('declares subscribe, and a listen stream on the graph is honored', async () => {
          await using s = await session();
          expect(s.client.getServerCapabilities()?.resources).toMatchObject({ subscribe: true, listChanged: true });
          const feed = s.updates!();
          await feed.subscribe(); // fails unless the server honours the filter as asked
          await feed.unsubscribe();
        });

      // Needs a client that can hear updates: not a 2025 client of stateless replicas (no session, no stream).
      if (target.hearsUpdates)
        it('notifies subscribers after each mutation that changed the graph, not after reads, failures or no-ops', async () => {
          await using s = await session();
          const feed = s.updates!();
          const { seen } = feed;
          const e = { name: 'A', entityType: 't', observations: [] };
          await call(s.client, 'create_entities', { entities: [e] });
          await target.settle(s.client);
          expect(seen).toEqual([]); // not subscribed yet
          await feed.subscribe();
          await call(s.client, 'create_relations', { relations: [{ from: 'A', to: 'B', relationType: 'r' }] });
          await call(s.client, 'add_observations', { observations: [{ entityName: 'A', contents: ['x'] }] });
          await call(s.client, 'delete_observations', { deletions: [{ entityName: 'A', observations: ['x'] }] });
          await call(s.client, 'delete_relations', { relations: [{ from: 'A', to: 'B', relationType: 'r' }] });
          await target.arrived(() => expect(seen).toHaveLength(4));
          await call(s.client, 'create_entities', { entities: [e] }); // exists: nothing changed
          await call(s.client, 'add_observations', { observations: [{ entityName: 'Nope', contents: ['x'] }] }); // fails
          await call(s.client, 'read_graph', {});
          await target.settle(s.client);
          expect(seen).toHaveLength(4);
          await call(s.client, 'delete_entities', { entityNames: ['A'] });
          await target.arrived(() => expect(seen).toEqual(Array(5).fill(KNOWLEDGE_GRAPH_URI)));
          await feed.unsubscribe();
          await call(s.client, 'create_entities', { entities: [e] });
          await target.settle(s.client);
          expect(seen).toHaveLength(5);
        });

      // Wires its own HTTP server around a store: in-process targets only.
      if (open)
        it('over HTTP, sessions share the store and only subscribed sessions are notified', async () => {
          await using f = await open();
          const store = f.store;
          await using http = await startHttp({ createServer: () => createMemoryServer({ store }) });
          const a = await http.connect();
          const b = await http.connect();
          const seenA = updates(a);
          const seenB = updates(b);
          await a.subscribeResource({ uri: KNOWLEDGE_GRAPH_URI });
          await call(b, 'create_entities', { entities: [{ name: 'FromB', entityType: 't', observations: [] }] });
          await expect.poll(() => seenA).toEqual([KNOWLEDGE_GRAPH_URI]);
          expect(seenB).toEqual([]);
          expect((await call(a, 'open_nodes', { names: ['FromB'] })).structuredContent).toMatchObject({ entities: [{ name: 'FromB' }] });
        });
    });
  });
}
