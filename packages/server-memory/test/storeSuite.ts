/**
 * The suite every `GraphStore` must pass (the unstorage `testDriver` pattern): the reference's
 * `knowledge-graph.test.ts` list (§6.6) as behaviour, plus what we add (intra-batch dedupe,
 * pagination, change events). Call `testStore(name, open)` from a store's own test file.
 */
import { describe, expect, it } from 'vitest';
import type { GraphStore } from '../src/server.js';
import { additionCases } from './storeSuiteAdditions.js';
import { alice, bob, type StoreFixture } from './storeSuiteFixture.js';

export type { StoreFixture } from './storeSuiteFixture.js';

export function testStore(name: string, open: () => Promise<StoreFixture>): void {
  describe(`GraphStore suite: ${name}`, () => {
    describe('createEntities (§6.6 1-3)', () => {
      it('1. creates new entities and returns them', async () => {
        await using f = await open();
        expect(await f.store.createEntities([alice, bob])).toEqual([alice, bob]);
        expect((await f.store.readGraph()).entities).toHaveLength(2);
      });

      it('2. skips a name that exists', async () => {
        await using f = await open();
        await f.store.createEntities([alice]);
        expect(await f.store.createEntities([{ ...alice, entityType: 'other' }])).toEqual([]);
        expect((await f.store.readGraph()).entities).toEqual([alice]);
      });

      it('3. an empty batch returns []', async () => {
        await using f = await open();
        expect(await f.store.createEntities([])).toEqual([]);
      });

      it('adds a name repeated within one batch once, first wins (reference: both)', async () => {
        await using f = await open();
        const created = await f.store.createEntities([alice, { ...alice, entityType: 'dup' }]);
        expect(created).toEqual([alice]);
        expect((await f.store.readGraph()).entities).toEqual([alice]);
      });

      it('does not alias the caller’s arrays', async () => {
        await using f = await open();
        const input = { name: 'X', entityType: 't', observations: ['a'] };
        await f.store.createEntities([input]);
        input.observations.push('b');
        expect((await f.store.openNodes(['X'])).entities[0]).toEqual({ name: 'X', entityType: 't', observations: ['a'] });
      });
    });

    describe('createRelations (§6.6 4-6)', () => {
      it('4. creates a relation', async () => {
        await using f = await open();
        await f.store.createEntities([alice, bob]);
        const rel = { from: 'Alice', to: 'Bob', relationType: 'knows' };
        expect(await f.store.createRelations([rel])).toEqual([rel]);
        expect((await f.store.readGraph()).relations).toEqual([rel]);
      });

      it('5. skips an existing relation, and a repeat within the batch', async () => {
        await using f = await open();
        const rel = { from: 'Alice', to: 'Bob', relationType: 'knows' };
        await f.store.createRelations([rel]);
        expect(await f.store.createRelations([rel])).toEqual([]);
        const other = { from: 'Bob', to: 'Alice', relationType: 'knows' };
        expect(await f.store.createRelations([other, other])).toEqual([other]);
        expect((await f.store.readGraph()).relations).toHaveLength(2);
      });

      it('6. an empty batch returns []; dangling endpoints are allowed', async () => {
        await using f = await open();
        expect(await f.store.createRelations([])).toEqual([]);
        expect(await f.store.createRelations([{ from: 'Ghost', to: 'Acme', relationType: 'haunts' }])).toHaveLength(1);
      });
    });

    describe('addObservations (§6.6 7-9)', () => {
      it('7. adds observations', async () => {
        await using f = await open();
        await f.store.createEntities([alice]);
        const res = await f.store.addObservations([{ entityName: 'Alice', contents: ['likes coffee', 'has a dog'] }]);
        expect(res).toEqual([{ entityName: 'Alice', addedObservations: ['likes coffee', 'has a dog'] }]);
        expect((await f.store.openNodes(['Alice'])).entities[0]).toMatchObject({
          observations: ['works at Acme Corp', 'likes coffee', 'has a dog'],
        });
      });

      it('8. skips observations the entity has, and repeats within the call', async () => {
        await using f = await open();
        await f.store.createEntities([alice]);
        await f.store.addObservations([{ entityName: 'Alice', contents: ['likes coffee'] }]);
        const res = await f.store.addObservations([{ entityName: 'Alice', contents: ['likes coffee', 'has a dog', 'has a dog'] }]);
        expect(res[0]!.addedObservations).toEqual(['has a dog']);
        expect((await f.store.openNodes(['Alice'])).entities[0]).toMatchObject({
          observations: ['works at Acme Corp', 'likes coffee', 'has a dog'],
        });
      });

      it('9. an unknown entity fails the whole call and saves nothing', async () => {
        await using f = await open();
        await f.store.createEntities([alice]);
        await expect(
          f.store.addObservations([
            { entityName: 'Alice', contents: ['new'] },
            { entityName: 'NonExistent', contents: ['x'] },
          ]),
        ).rejects.toThrow('Entity with name NonExistent not found');
        expect((await f.store.openNodes(['Alice'])).entities[0]).toMatchObject({ observations: ['works at Acme Corp'] });
        const again = await f.reopen?.();
        if (again) {
          expect((await again.openNodes(['Alice'])).entities[0]).toMatchObject({ observations: ['works at Acme Corp'] });
          await again.close();
        }
      });

      it('the same entity twice in one call: the second adds only what is new', async () => {
        await using f = await open();
        await f.store.createEntities([{ name: 'A', entityType: 't', observations: [] }]);
        const res = await f.store.addObservations([
          { entityName: 'A', contents: ['x'] },
          { entityName: 'A', contents: ['x', 'y'] },
        ]);
        expect(res).toEqual([
          { entityName: 'A', addedObservations: ['x'] },
          { entityName: 'A', addedObservations: ['y'] },
        ]);
      });
    });

    describe('deletes (§6.6 10-15)', () => {
      it('10. deleteEntities removes only the named entity', async () => {
        await using f = await open();
        await f.store.createEntities([alice, bob]);
        await f.store.deleteEntities(['Alice']);
        expect((await f.store.readGraph()).entities.map((e) => e.name)).toEqual(['Bob']);
      });

      it('11. deleteEntities cascades to relations at either end', async () => {
        await using f = await open();
        await f.store.createEntities([alice, bob, { name: 'Charlie', entityType: 'person', observations: [] }]);
        await f.store.createRelations([
          { from: 'Alice', to: 'Bob', relationType: 'knows' },
          { from: 'Bob', to: 'Charlie', relationType: 'knows' },
        ]);
        await f.store.deleteEntities(['Bob']);
        const g = await f.store.readGraph();
        expect(g.entities).toHaveLength(2);
        expect(g.relations).toHaveLength(0);
      });

      it('12. deleting an unknown entity is no error', async () => {
        await using f = await open();
        await f.store.deleteEntities(['NonExistent']);
        expect((await f.store.readGraph()).entities).toHaveLength(0);
      });

      it('13. deleteObservations removes the named observations', async () => {
        await using f = await open();
        await f.store.createEntities([{ name: 'Alice', entityType: 'person', observations: ['works at Acme Corp', 'likes coffee'] }]);
        await f.store.deleteObservations([{ entityName: 'Alice', observations: ['likes coffee'] }]);
        expect((await f.store.openNodes(['Alice'])).entities[0]).toMatchObject({ observations: ['works at Acme Corp'] });
      });

      it('14. deleteObservations on an unknown entity is no error', async () => {
        await using f = await open();
        await f.store.deleteObservations([{ entityName: 'NonExistent', observations: ['x'] }]);
      });

      it('15. deleteRelations removes only the exact triple', async () => {
        await using f = await open();
        await f.store.createRelations([
          { from: 'Alice', to: 'Bob', relationType: 'knows' },
          { from: 'Alice', to: 'Bob', relationType: 'works_with' },
        ]);
        await f.store.deleteRelations([{ from: 'Alice', to: 'Bob', relationType: 'knows' }]);
        expect((await f.store.readGraph()).relations).toEqual([{ from: 'Alice', to: 'Bob', relationType: 'works_with' }]);
      });
    });

    describe('readGraph (§6.6 16-17)', () => {
      it('16. an empty store reads as an empty graph', async () => {
        await using f = await open();
        const g = await f.store.readGraph();
        expect({ entities: g.entities, relations: g.relations }).toEqual({ entities: [], relations: [] });
      });

      it('17. a self-relation is kept', async () => {
        await using f = await open();
        await f.store.createEntities([alice]);
        await f.store.createRelations([{ from: 'Alice', to: 'Alice', relationType: 'self' }]);
        const g = await f.store.readGraph();
        expect([g.entities.length, g.relations.length]).toEqual([1, 1]);
      });
    });

    describe('searchNodes (§6.6 18-24)', () => {
      const fixture = async (store: GraphStore) => {
        await store.createEntities([
          { name: 'Alice', entityType: 'person', observations: ['works at Acme Corp', 'likes programming'] },
          { name: 'Bob', entityType: 'person', observations: ['works at TechCo'] },
          { name: 'Acme Corp', entityType: 'company', observations: ['tech company'] },
        ]);
        await store.createRelations([
          { from: 'Alice', to: 'Acme Corp', relationType: 'works_at' },
          { from: 'Bob', to: 'Acme Corp', relationType: 'competitor' },
        ]);
      };
      const names = (g: { entities: { name: string }[] }) => g.entities.map((e) => e.name);

      it('18-21. matches name, type and observation, case-insensitively', async () => {
        await using f = await open();
        await fixture(f.store);
        expect(names(await f.store.searchNodes('Alice'))).toEqual(['Alice']);
        expect(names(await f.store.searchNodes('company'))).toEqual(['Acme Corp']);
        expect(names(await f.store.searchNodes('programming'))).toEqual(['Alice']);
        expect(names(await f.store.searchNodes('ALICE'))).toEqual(['Alice']);
      });

      it('22. `Acme` finds two entities and both relations', async () => {
        await using f = await open();
        await fixture(f.store);
        const g = await f.store.searchNodes('Acme');
        expect(names(g)).toEqual(['Alice', 'Acme Corp']);
        expect(g.relations).toHaveLength(2);
      });

      it('23. relations to an unmatched entity are included', async () => {
        await using f = await open();
        await fixture(f.store);
        expect((await f.store.searchNodes('Alice')).relations).toEqual([{ from: 'Alice', to: 'Acme Corp', relationType: 'works_at' }]);
      });

      it('24. no match: nothing', async () => {
        await using f = await open();
        await fixture(f.store);
        const g = await f.store.searchNodes('NonExistent');
        expect([g.entities.length, g.relations.length]).toEqual([0, 0]);
      });

      it('sees observation changes, and does not match across field boundaries', async () => {
        await using f = await open();
        await fixture(f.store);
        expect(names(await f.store.searchNodes('plays chess'))).toEqual([]);
        await f.store.addObservations([{ entityName: 'Bob', contents: ['Plays Chess'] }]);
        expect(names(await f.store.searchNodes('plays chess'))).toEqual(['Bob']);
        await f.store.deleteObservations([{ entityName: 'Bob', observations: ['Plays Chess'] }]);
        expect(names(await f.store.searchNodes('plays chess'))).toEqual([]);
        expect(names(await f.store.searchNodes('personworks'))).toEqual([]);
        expect(names(await f.store.searchNodes('bob\u0000person'))).toEqual([]);
      });
    });

    describe('openNodes (§6.6 25-31)', () => {
      const fixture = async (store: GraphStore) => {
        await store.createEntities(['Alice', 'Bob', 'Charlie'].map((name) => ({ name, entityType: 'person', observations: [] })));
        await store.createRelations([
          { from: 'Alice', to: 'Bob', relationType: 'knows' },
          { from: 'Bob', to: 'Charlie', relationType: 'knows' },
        ]);
      };

      it('25-26. two names: both entities, both relations', async () => {
        await using f = await open();
        await fixture(f.store);
        const g = await f.store.openNodes(['Alice', 'Bob']);
        expect(g.entities).toHaveLength(2);
        expect(g.relations).toHaveLength(2);
      });

      it('27-29. relations with either endpoint requested', async () => {
        await using f = await open();
        await fixture(f.store);
        expect((await f.store.openNodes(['Bob'])).relations).toHaveLength(2);
        const a = await f.store.openNodes(['Alice']);
        expect([a.entities.length, a.relations]).toEqual([1, [{ from: 'Alice', to: 'Bob', relationType: 'knows' }]]);
        expect((await f.store.openNodes(['Charlie'])).relations).toEqual([{ from: 'Bob', to: 'Charlie', relationType: 'knows' }]);
      });

      it('30-31. unknown names and [] give nothing', async () => {
        await using f = await open();
        await fixture(f.store);
        expect((await f.store.openNodes(['NonExistent'])).entities).toHaveLength(0);
        const g = await f.store.openNodes([]);
        expect([g.entities.length, g.relations.length]).toEqual([0, 0]);
      });

      it('returns entities in graph order, not request order, each once', async () => {
        await using f = await open();
        await fixture(f.store);
        expect((await f.store.openNodes(['Charlie', 'Alice', 'Alice'])).entities.map((e) => e.name)).toEqual(['Alice', 'Charlie']);
      });
    });

    describe('persistence (§6.6 32, 34-36)', () => {
      it('32. data is there for a fresh store on the same data, without `type` fields', async () => {
        await using f = await open();
        if (!f.reopen) return;
        await f.store.createEntities([alice]);
        await f.store.createRelations([{ from: 'Alice', to: 'Bob', relationType: 'knows' }]);
        const again = await f.reopen();
        const g = await again.readGraph();
        expect(g.entities).toEqual([alice]);
        expect(g.relations).toEqual([{ from: 'Alice', to: 'Bob', relationType: 'knows' }]);
        for (const e of [...g.entities, ...(await again.searchNodes('Alice')).entities, ...(await again.openNodes(['Alice'])).entities]) {
          expect(e).not.toHaveProperty('type');
        }
        expect(g.relations[0]).not.toHaveProperty('type');
        await again.close();
      });
    });

    additionCases(open);
  });
}
