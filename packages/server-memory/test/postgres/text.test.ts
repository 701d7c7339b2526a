// @module-tag slow
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { openPostgresStore } from '../../src/store/postgres/postgresStore.js';
import { freshDatabase, freshGraph, postgresFixture, postgresUrl } from './fixture.js';

const url = postgresUrl();
const names = (g: { entities: { name: string }[] }) => g.entities.map((e) => e.name);

describe.skipIf(!url)('PostgreSQL store: text is stored and searched literally', () => {
  const tricky = [
    '100%',
    '100 percent',
    'a_b',
    'axb',
    'back\\slash',
    'backslash',
    "it's",
    'say "hi"',
    "'; DROP TABLE memory_entities; --",
    '$1',
  ];

  it('stores quotes, backslashes, % and _ as given, and finds each only by itself', async () => {
    await using f = await postgresFixture();
    await f.store.createEntities(tricky.map((name) => ({ name, entityType: name, observations: [name, `${name} again`] })));
    const g = await f.store.readGraph();
    expect(g.entities).toEqual(tricky.map((name) => ({ name, entityType: name, observations: [name, `${name} again`] })));
    expect(names(await f.store.searchNodes('%'))).toEqual(['100%']);
    expect(names(await f.store.searchNodes('a_b'))).toEqual(['a_b']);
    expect(names(await f.store.searchNodes('_'))).toEqual(['a_b', "'; DROP TABLE memory_entities; --"]);
    expect(names(await f.store.searchNodes('\\'))).toEqual(['back\\slash']);
    expect(names(await f.store.searchNodes('K\\S'))).toEqual(['back\\slash']);
    expect(names(await f.store.searchNodes("IT'S"))).toEqual(["it's"]);
    expect(names(await f.store.searchNodes('"HI"'))).toEqual(['say "hi"']);
    expect(names(await f.store.searchNodes("'; drop"))).toEqual(["'; DROP TABLE memory_entities; --"]);
    expect(names(await f.store.searchNodes('$1'))).toEqual(['$1']);
    expect(names(await f.store.searchNodes(''))).toEqual(tricky);
    expect(names(await f.store.openNodes(['100%', 'a_b', '$1']))).toEqual(['100%', 'a_b', '$1']);
    await f.store.createRelations([{ from: 'a_b', to: '100%', relationType: "o'clock\\" }]);
    await f.store.deleteRelations([{ from: 'axb', to: '100%', relationType: "o'clock\\" }]);
    expect((await f.store.readGraph()).relations).toHaveLength(1);
    await f.store.deleteEntities(['a%']);
    expect((await f.store.readGraph()).entities).toHaveLength(tricky.length);
  });

  it('keeps long names and observations (past a btree entry) and finds them', async () => {
    await using f = await postgresFixture();
    const long = `ü${'x'.repeat(20_000)}`; // 20 kB: names are keyed by their SHA-256, so length is no limit
    const obs = `${'y'.repeat(100_000)}needle`;
    await f.store.createEntities([{ name: long, entityType: 't', observations: [obs] }]);
    expect(await f.store.createEntities([{ name: long, entityType: 'again', observations: [] }])).toEqual([]);
    await f.store.createRelations([{ from: long, to: long, relationType: long }]);
    expect(names(await f.store.searchNodes('NEEDLE'))).toEqual([long]);
    expect((await f.store.openNodes([long])).relations).toEqual([{ from: long, to: long, relationType: long }]);
    await f.store.deleteEntities([long]);
    const g = await f.store.readGraph();
    expect([g.entities.length, g.relations.length]).toEqual([0, 0]);
  });

  it('refuses NUL in what it would store, naming the field, and writes nothing; reads with NUL find nothing', async () => {
    await using f = await postgresFixture();
    await expect(
      f.store.createEntities([
        { name: 'ok', entityType: 't', observations: [] },
        { name: 'x', entityType: 't', observations: ['fine', 'bad\u0000'] },
      ]),
    ).rejects.toThrow(
      /^entities\[1\]\.observations\[1\] contains a NUL character \(\\u0000\), which the PostgreSQL store cannot hold; nothing was written$/,
    );
    await expect(f.store.createRelations([{ from: 'a', to: 'b\u0000', relationType: 'r' }])).rejects.toThrow(
      /^relations\[0\]\.to contains a NUL/,
    );
    await f.store.createEntities([{ name: 'ok', entityType: 't', observations: [] }]);
    await expect(f.store.addObservations([{ entityName: 'ok', contents: ['\u0000'] }])).rejects.toThrow(
      /^observations\[0\]\.contents\[0\] contains a NUL/,
    );
    await expect(f.store.addObservations([{ entityName: 'no\u0000', contents: ['x'] }])).rejects.toThrow(
      'Entity with name no\u0000 not found',
    );
    expect((await f.store.readGraph()).entities).toEqual([{ name: 'ok', entityType: 't', observations: [] }]);
    expect(names(await f.store.searchNodes('o\u0000'))).toEqual([]);
    expect(names(await f.store.openNodes(['ok\u0000', 'ok']))).toEqual(['ok']);
    await f.store.deleteEntities(['ok\u0000']);
    await f.store.deleteObservations([{ entityName: 'ok', observations: ['\u0000'] }]);
    await f.store.deleteRelations([{ from: '\u0000', to: 'b', relationType: 'r' }]);
    expect((await f.store.readGraph()).entities).toHaveLength(1);
  });

  it('search is served by the trigram index, open_nodes by the key', async () => {
    await using db = await freshDatabase(); // its own statistics, whatever other tests write meanwhile
    const graph = freshGraph();
    const store = openPostgresStore({ url: db.url, graph });
    const client = new pg.Client(db.url);
    await client.connect();
    try {
      for (let batch = 0; batch < 3; batch++) {
        await store.createEntities(
          Array.from({ length: 1000 }, (_, i) => ({
            name: `Entity-${batch}-${i}`,
            entityType: `type-${i % 20}`,
            observations: [`Observation ${batch * 1000 + i}-A`],
          })),
        );
      }
      await client.query('ANALYZE memory_entities');
      const plan = async (sql: string, params: unknown[]) =>
        (await client.query(`EXPLAIN ${sql}`, params)).rows.map((r: { 'QUERY PLAN': string }) => r['QUERY PLAN']).join('\n');
      const search = await plan(
        `SELECT name FROM memory_entities WHERE graph = $1 AND memory_search_text(name, entity_type, observations) ILIKE $2
           AND (name ILIKE $2 OR entity_type ILIKE $2 OR EXISTS (SELECT 1 FROM unnest(observations) AS o WHERE o ILIKE $2)) ORDER BY seq`,
        [graph, '%observation 1234-a%'],
      );
      expect(search, search).toContain('Bitmap Index Scan on memory_entities_search');
      expect((await store.searchNodes('OBSERVATION 1234-a')).entities.map((e) => e.name)).toEqual(['Entity-1-234']);
      const open = await plan(
        'SELECT name FROM memory_entities WHERE graph = $1 AND name_key = ANY (ARRAY(SELECT memory_key(n) FROM unnest($2::text[]) AS n))',
        [graph, ['Entity-1-234']],
      );
      expect(open, open).toMatch(/Index Scan using memory_entities_pkey/);
    } finally {
      await client.end();
      await store.close();
    }
  });
});
