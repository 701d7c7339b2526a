/** The `GraphStore` suite's cases beyond the reference's list: pages, change events, `ready`, concurrent calls. */
import { describe, expect, it } from 'vitest';
import type { GraphChange, GraphStore } from '../src/server.js';
import { alice, type StoreFixture } from './storeSuiteFixture.js';

/** Runs inside `testStore`'s `describe`. */
export function additionCases(open: () => Promise<StoreFixture>): void {
  describe('pages (mcpkit addition)', () => {
    const fill = async (store: GraphStore) => {
      await store.createEntities(Array.from({ length: 5 }, (_, i) => ({ name: `E${i}`, entityType: 't', observations: [`o${i}`] })));
      await store.createRelations(Array.from({ length: 4 }, (_, i) => ({ from: `E${i}`, to: `E${i + 1}`, relationType: 'next' })));
    };

    it('pages count entities first, then relations, and say what is left', async () => {
      await using f = await open();
      await fill(f.store);
      const p1 = await f.store.readGraph({ offset: 0, limit: 4 });
      expect(p1.entities.map((e) => e.name)).toEqual(['E0', 'E1', 'E2', 'E3']);
      expect(p1.relations).toEqual([]);
      expect([p1.totalEntities, p1.totalRelations, p1.nextOffset]).toEqual([5, 4, 4]);
      const p2 = await f.store.readGraph({ offset: 4, limit: 4 });
      expect(p2.entities.map((e) => e.name)).toEqual(['E4']);
      expect(p2.relations).toHaveLength(3);
      const p3 = await f.store.readGraph({ offset: 8, limit: 4 });
      expect(p3.entities).toEqual([]);
      expect(p3.relations).toEqual([{ from: 'E3', to: 'E4', relationType: 'next' }]);
      expect(p3.nextOffset).toBeUndefined();
    });

    it('namesOnly leaves observations out; search and open page the same way', async () => {
      await using f = await open();
      await fill(f.store);
      const g = await f.store.readGraph({ namesOnly: true });
      expect(g.entities[0]).toEqual({ name: 'E0', entityType: 't' });
      const s = await f.store.searchNodes('o', { offset: 0, limit: 2 });
      expect(s.entities.map((e) => e.name)).toEqual(['E0', 'E1']);
      expect([s.totalEntities, s.totalRelations, s.nextOffset]).toEqual([5, 4, 2]);
      const o = await f.store.openNodes(['E0', 'E1'], { offset: 2, limit: 5 });
      expect(o.entities).toEqual([]);
      expect(o.relations).toEqual([
        { from: 'E0', to: 'E1', relationType: 'next' },
        { from: 'E1', to: 'E2', relationType: 'next' },
      ]);
    });
  });

  describe('change events', () => {
    it('fires after a change, not after a call that changed nothing or failed', async () => {
      await using f = await open();
      const seen: GraphChange[] = [];
      f.store.onChange((c) => seen.push(c));
      await f.store.createEntities([alice]);
      expect(seen).toEqual([{ source: 'local' }]);
      await f.store.createEntities([alice]);
      await f.store.deleteEntities(['Nobody']);
      await f.store.addObservations([{ entityName: 'Nobody', contents: ['x'] }]).catch(() => {});
      expect(seen).toHaveLength(1);
      await f.store.deleteEntities(['Alice']);
      expect(seen).toHaveLength(2);
    });
  });

  describe('ready (optional)', () => {
    it('resolves once the graph is loaded, with its progress complete; calls work after it', async () => {
      await using f = await open();
      if (!f.store.ready) return;
      await f.store.createEntities([alice]);
      const seen: { loaded: number; total: number }[] = [];
      await f.store.ready({ onProgress: (p) => seen.push(p), signal: new AbortController().signal });
      for (const p of seen) expect(p.loaded).toBeLessThanOrEqual(p.total);
      expect((await f.store.readGraph()).entities).toEqual([alice]);
      const again = await f.reopen?.();
      if (again) {
        await again.ready!();
        expect((await again.readGraph()).entities).toEqual([alice]);
        await again.close();
      }
    });
  });

  describe('concurrent calls', () => {
    it('keeps every one of 200 concurrent creates', async () => {
      await using f = await open();
      await Promise.all(
        Array.from({ length: 200 }, (_, i) => f.store.createEntities([{ name: `N${i}`, entityType: 't', observations: [] }])),
      );
      expect((await f.store.readGraph()).entities).toHaveLength(200);
      const again = await f.reopen?.();
      if (again) {
        expect((await again.readGraph()).entities).toHaveLength(200);
        await again.close();
      }
    });
  });
}
