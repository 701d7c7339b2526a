// @module-tag slow
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { openPostgresStore } from '../../src/store/postgres/postgresStore.js';
import { SCHEMA_VERSION } from '../../src/store/postgres/schema.js';
import { freshDatabase, freshGraph, postgresUrl } from './fixture.js';

const url = postgresUrl();

describe.skipIf(!url)('PostgreSQL store: schema and graphs', () => {
  it('four replicas starting at once on an empty database migrate it once and all work', async () => {
    await using db = await freshDatabase();
    const stores = Array.from({ length: 4 }, () => openPostgresStore({ url: db.url, graph: 'shared', poolSize: 2 }));
    try {
      await Promise.all(stores.map((s, i) => s.createEntities([{ name: `E${i}`, entityType: 't', observations: [] }])));
      expect((await stores[0]!.readGraph()).entities).toHaveLength(4);
      const client = new pg.Client(db.url);
      await client.connect();
      expect((await client.query('SELECT version FROM memory_schema_version')).rows).toEqual([{ version: SCHEMA_VERSION }]);
      await client.end();
    } finally {
      await Promise.all(stores.map((s) => s.close()));
    }
  });

  it('refuses a database migrated by a newer server, clearly, and changes nothing', async () => {
    await using db = await freshDatabase();
    const client = new pg.Client(db.url);
    await client.connect();
    await client.query('CREATE TABLE memory_schema_version (version integer NOT NULL); INSERT INTO memory_schema_version VALUES (99)');
    await client.end();
    const store = openPostgresStore({ url: db.url });
    try {
      await expect(store.readGraph()).rejects.toThrow(/schema version 99, newer than this server's 1: upgrade @mcpkit\/server-memory/);
    } finally {
      await store.close();
    }
  });

  it('named graphs never mix: same names in two graphs, each sees only its own', async () => {
    const [a, b] = [freshGraph(), freshGraph()];
    const storeA = openPostgresStore({ url: url!, graph: a });
    const storeB = openPostgresStore({ url: url!, graph: b });
    try {
      await storeA.createEntities([{ name: 'Same', entityType: 'in-a', observations: ['a'] }]);
      expect(await storeB.createEntities([{ name: 'Same', entityType: 'in-b', observations: ['b'] }])).toHaveLength(1);
      await storeA.createRelations([{ from: 'Same', to: 'Same', relationType: 'r' }]);
      expect((await storeB.readGraph()).relations).toEqual([]);
      expect((await storeB.searchNodes('in-a')).entities).toEqual([]);
      await storeB.deleteEntities(['Same']);
      expect((await storeA.openNodes(['Same'])).entities).toEqual([{ name: 'Same', entityType: 'in-a', observations: ['a'] }]);
      expect((await storeA.readGraph()).relations).toHaveLength(1);
    } finally {
      await storeA.close();
      await storeB.close();
    }
  });
});
