// @module-tag slow
import { describe, expect, it } from 'vitest';
import { SEARCH_EXACT_UP_TO } from '../../src/store/postgres/searchSeek.js';
import { EXACT_UP_TO } from '../../src/store/postgres/seek.js';
import { pageRequest, pageResult } from '../../src/tools/paging.js';
import { postgresFixture, postgresUrl } from './fixture.js';

const url = postgresUrl();
const names = (p: { entities: { name: string }[] }) => p.entities.map((e) => e.name);

describe.skipIf(!url)('PostgreSQL read_graph pages seek by key', () => {
  it('a page continues after the last key: deleting items before it neither repeats nor skips one', async () => {
    await using f = await postgresFixture();
    await f.store.createEntities(Array.from({ length: 6 }, (_, i) => ({ name: `E${i}`, entityType: 't', observations: [] })));
    await f.store.createRelations([
      { from: 'E4', to: 'E5', relationType: 'r1' },
      { from: 'E5', to: 'E4', relationType: 'r2' },
    ]);
    const p1 = await f.store.readGraph({ offset: 0, limit: 3 });
    expect(names(p1)).toEqual(['E0', 'E1', 'E2']);
    expect(p1.nextAfter).toMatch(/^e:\d+$/);
    await f.store.deleteEntities(['E0', 'E1']);
    const p2 = await f.store.readGraph({ offset: 3, limit: 3, after: p1.nextAfter!, totals: { entities: 6, relations: 2 } });
    expect(names(p2)).toEqual(['E3', 'E4', 'E5']);
    expect([p2.totalEntities, p2.totalRelations]).toEqual([6, 2]);
    expect(p2.nextAfter).toMatch(/^r:\d+$/);
    const p3 = await f.store.readGraph({ offset: 6, limit: 1, after: p2.nextAfter! });
    expect(p3.relations.map((r) => r.relationType)).toEqual(['r1']);
    const p4 = await f.store.readGraph({ offset: 7, limit: 1, after: p3.nextAfter! });
    expect(p4.relations.map((r) => r.relationType)).toEqual(['r2']);
    expect(p4.nextOffset).toBeUndefined();
  });

  it('the cursor carries key and totals; a cursor from before keys (offset only) still pages by offset', async () => {
    await using f = await postgresFixture();
    await f.store.createEntities(Array.from({ length: 4 }, (_, i) => ({ name: `E${i}`, entityType: 't', observations: [] })));
    const first = pageRequest({ limit: 2 }, 'read_graph')!;
    const out = pageResult(await f.store.readGraph(first), first, 'read_graph') as { nextCursor?: string };
    const next = pageRequest({ limit: 2, cursor: out.nextCursor }, 'read_graph')!;
    expect(next).toMatchObject({ offset: 2, after: expect.stringMatching(/^e:/), totals: { entities: 4, relations: 0 } });
    expect(names(await f.store.readGraph(next))).toEqual(['E2', 'E3']);
    const fnv = JSON.parse(Buffer.from(out.nextCursor!, 'base64url').toString()).k as string;
    const old = Buffer.from(JSON.stringify({ o: 1, k: fnv })).toString('base64url');
    const oldPage = await f.store.readGraph(pageRequest({ limit: 2, cursor: old }, 'read_graph'));
    expect(names(oldPage)).toEqual(['E1', 'E2']);
    expect(oldPage.totalEntities).toBe(4);
  });

  it('totals are exact up to the cap and an estimate above it, never below the cap', async () => {
    await using f = await postgresFixture();
    const n = EXACT_UP_TO + 5;
    for (let i = 0; i < n; i += 5000) {
      const size = Math.min(5000, n - i);
      await f.store.createEntities(Array.from({ length: size }, (_, j) => ({ name: `E${i + j}`, entityType: 't', observations: [] })));
    }
    const page = await f.store.readGraph({ offset: 0, limit: 1 });
    expect(page.totalEntities).toBeGreaterThan(EXACT_UP_TO);
    expect(page.totalRelations).toBe(0);
  });

  it('search_nodes walks by key to the same items as the whole search, totals from the first page', async () => {
    await using f = await postgresFixture();
    await f.store.createEntities(
      Array.from({ length: 5 }, (_, i) => ({ name: `E${i}`, entityType: i % 2 ? 'odd' : 'even', observations: [] })),
    );
    await f.store.createRelations([
      { from: 'E0', to: 'E1', relationType: 'a' },
      { from: 'E1', to: 'E3', relationType: 'b' },
      { from: 'E2', to: 'E4', relationType: 'c' },
    ]);
    const whole = await f.store.searchNodes('odd');
    const seen: string[] = [];
    let page = await f.store.searchNodes('odd', { offset: 0, limit: 1 });
    expect([page.totalEntities, page.totalRelations]).toEqual([2, 2]);
    for (;;) {
      seen.push(...names(page), ...page.relations.map((r) => r.relationType));
      if (page.nextAfter === undefined) break;
      const totals = { entities: page.totalEntities, relations: page.totalRelations };
      page = await f.store.searchNodes('odd', { offset: page.nextOffset!, limit: 1, after: page.nextAfter, totals });
    }
    expect(seen).toEqual([...names(whole), ...whole.relations.map((r) => r.relationType)]);
    expect(seen).toEqual(['E1', 'E3', 'a', 'b']);
  });

  it('search totals are exact up to the cap and estimated above it', async () => {
    await using f = await postgresFixture();
    const n = SEARCH_EXACT_UP_TO + 10;
    await f.store.createEntities(Array.from({ length: n }, (_, i) => ({ name: `E${i}`, entityType: 'hit', observations: [] })));
    await f.store.createRelations(Array.from({ length: n - 1 }, (_, i) => ({ from: `E${i}`, to: `E${i + 1}`, relationType: 'r' })));
    const exact = await f.store.searchNodes('E1', { offset: 0, limit: 1 });
    const whole = await f.store.searchNodes('E1');
    expect([exact.totalEntities, exact.totalRelations]).toEqual([whole.entities.length, whole.relations.length]);
    expect([exact.totalEntities, exact.totalRelations]).toEqual([21, 23]); // E1, E10-E19, E100-E109; 2 + 11 + 10 relations
    const above = await f.store.searchNodes('hit', { offset: 0, limit: 1 });
    expect(above.totalEntities).toBeGreaterThan(SEARCH_EXACT_UP_TO);
    expect(above.totalRelations).toBeGreaterThan(SEARCH_EXACT_UP_TO);
  });
});
