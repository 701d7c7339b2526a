// @module-tag slow
import { describe, expect, it } from 'vitest';
import { openPostgresStore } from '../../src/store/postgres/postgresStore.js';
import { freshGraph, postgresUrl } from './fixture.js';

const url = postgresUrl();

describe.skipIf(!url)('PostgreSQL store: concurrency', () => {
  it('4 stores (4 pools) × 250 concurrent create_entities on one graph keep exactly 1000 entities', async () => {
    const graph = freshGraph();
    const stores = Array.from({ length: 4 }, () => openPostgresStore({ url: url!, graph, poolSize: 5 }));
    try {
      await Promise.all(
        stores.flatMap((store, s) =>
          Array.from({ length: 250 }, (_, i) => store.createEntities([{ name: `S${s}-N${i}`, entityType: 't', observations: [`o${i}`] }])),
        ),
      );
      const g = await stores[0]!.readGraph();
      expect(g.entities).toHaveLength(1000);
      expect(new Set(g.entities.map((e) => e.name)).size).toBe(1000);
    } finally {
      await Promise.all(stores.map((s) => s.close()));
    }
  });

  it('racing creates of the same names and observations keep each once', async () => {
    const graph = freshGraph();
    const stores = Array.from({ length: 4 }, () => openPostgresStore({ url: url!, graph, poolSize: 3 }));
    try {
      const created = await Promise.all(
        stores.flatMap((store) =>
          Array.from({ length: 25 }, (_, i) => store.createEntities([{ name: `N${i}`, entityType: 't', observations: [] }])),
        ),
      );
      expect(created.flat()).toHaveLength(25);
      const added = await Promise.all(
        stores.flatMap((store) => Array.from({ length: 10 }, () => store.addObservations([{ entityName: 'N0', contents: ['x', 'y'] }]))),
      );
      expect(added.flatMap((r) => r[0]!.addedObservations).sort()).toEqual(['x', 'y']);
      const rels = await Promise.all(stores.map((store) => store.createRelations([{ from: 'N0', to: 'N1', relationType: 'r' }])));
      expect(rels.flat()).toHaveLength(1);
      expect((await stores[1]!.openNodes(['N0'])).entities[0]).toEqual({ name: 'N0', entityType: 't', observations: ['x', 'y'] });
    } finally {
      await Promise.all(stores.map((s) => s.close()));
    }
  });
});
