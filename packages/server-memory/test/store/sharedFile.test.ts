/** The file store after a crash (a killed writer, a stopped compaction) and with several stores (processes) on one file. */
import { appendFileSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { referenceLoad, referenceSave } from '../helpers.js';
import { capture, fixture, sample } from './fileFixture.js';

describe('crash safety', () => {
  it('ignores a half-written journal record of a killed writer and cuts it off before the next append', async () => {
    await using f = await fixture({ smallFileBytes: 0 });
    await f.store.createEntities([sample.entities[0]!]);
    // A writer killed mid-append leaves a line without its newline.
    appendFileSync(`${f.path}.wal`, '{"op":"createEntities","entities":[{"name":"Ghost","entityType":"t","obs');
    const b = await f.open();
    expect((await b.readGraph()).entities.map((e) => e.name)).toEqual(['Alice']);
    await b.createEntities([sample.entities[1]!]);
    const c = await f.open();
    expect((await c.readGraph()).entities.map((e) => e.name)).toEqual(['Alice', 'Bob']);
    expect(readFileSync(`${f.path}.wal`, 'utf8')).not.toContain('Ghost');
  });

  it('a journal left by a process that never closed is replayed by the next one', async () => {
    await using f = await fixture({ smallFileBytes: 0 });
    await f.store.createEntities(sample.entities);
    await f.store.addObservations([{ entityName: 'Bob', contents: ['new'] }]);
    await f.store.deleteRelations([]);
    const before = f.text();
    const b = await f.open();
    expect((await b.openNodes(['Bob'])).entities[0]).toMatchObject({ observations: ['new'] });
    expect(f.text()).toBe(before);
  });

  it('a compaction stopped after replacing the snapshot does not replay the journal twice', async () => {
    const { lines, logger } = capture();
    await using f = await fixture({ smallFileBytes: 0, logger });
    await f.store.createEntities(sample.entities);
    // Simulate: the snapshot was renamed into place, the `compactedTo` marker is in the old journal, then the process died.
    const { renameSync, statSync: st } = await import('node:fs');
    const tmp = `${f.path}.0123456789abcdef.tmp`;
    writeFileSync(tmp, referenceSave({ entities: sample.entities, relations: [] }));
    const s = st(tmp, { bigint: true });
    appendFileSync(
      `${f.path}.wal`,
      `${JSON.stringify({ compactedTo: { ino: String(s.ino), size: String(s.size), mtimeNs: String(s.mtimeNs) } })}\n`,
    );
    renameSync(tmp, f.path);
    const b = await f.open();
    expect((await b.readGraph()).entities).toEqual(sample.entities);
    expect(lines.join('')).not.toMatch(/changed by another program/);
  });

  it('replays pending journal records onto a snapshot someone else rewrote, with a warning', async () => {
    const { lines, logger } = capture();
    await using f = await fixture({ smallFileBytes: 0, logger });
    await f.store.createEntities([{ name: 'Carol', entityType: 'person', observations: [] }]); // the first write creates the snapshot
    await f.store.createEntities([sample.entities[0]!]); // this one sits in the journal
    writeFileSync(f.path, referenceSave({ entities: [sample.entities[1]!], relations: [] }));
    const b = await f.open();
    expect((await b.readGraph()).entities.map((e) => e.name).sort()).toEqual(['Alice', 'Bob']);
    expect(lines.join('')).toMatch(/changed by another program/);
  });

  it('removes temp files a killed writer left behind', async () => {
    await using f = await fixture();
    writeFileSync(`${f.path}.0123456789abcdef.tmp`, 'partial');
    await f.store.createEntities(sample.entities);
    expect(readdirSync(f.dir).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });
});

describe('several stores (processes) on one file', () => {
  for (const mode of [{ smallFileBytes: 256 * 1024 }, { smallFileBytes: 0 }]) {
    const label = mode.smallFileBytes ? 'small graph' : 'journal';
    it(`${label}: each sees the other’s writes and no concurrent write is lost`, async () => {
      await using f = await fixture(mode);
      const b = await f.open();
      await f.store.createEntities([sample.entities[0]!]);
      expect((await b.readGraph()).entities.map((e) => e.name)).toEqual(['Alice']);
      await b.addObservations([{ entityName: 'Alice', contents: ['from b'] }]);
      expect((await f.store.openNodes(['Alice'])).entities[0]).toMatchObject({ observations: ['likes tea', 'from b'] });
      await Promise.all(
        Array.from({ length: 100 }, (_, i) => (i % 2 ? f.store : b).createEntities([{ name: `P${i}`, entityType: 't', observations: [] }])),
      );
      expect((await f.store.readGraph()).entities).toHaveLength(101);
      expect((await b.readGraph()).entities).toHaveLength(101);
      await f.store.close();
      await b.close();
      expect(referenceLoad(f.text()).entities).toHaveLength(101);
    });
  }

  it('follows another store’s compaction', async () => {
    await using f = await fixture({ smallFileBytes: 0 });
    const b = await f.open({ compactDelayMs: 20 });
    await f.store.createEntities([sample.entities[0]!]);
    await b.createEntities([sample.entities[1]!]);
    await expect.poll(f.text).toBe(referenceSave({ entities: sample.entities, relations: [] }));
    await f.store.createRelations(sample.relations);
    expect(await b.readGraph()).toMatchObject(sample);
    expect(await f.store.readGraph()).toMatchObject(sample);
  });

  it('tells listeners about another store’s changes on the next call, and on its own while watched', async () => {
    await using f = await fixture();
    const b = await f.open({ pollMs: 20 });
    const seen: string[] = [];
    b.onChange((c) => seen.push(c.source));
    await f.store.createEntities([sample.entities[0]!]);
    await b.readGraph();
    expect(seen).toEqual(['external']);
    const stop = b.watch();
    await f.store.createEntities([sample.entities[1]!]);
    await expect.poll(() => seen).toEqual(['external', 'external']); // heard by the watch, with no call of b's
    stop();
    await b.readGraph(); // told once: the next call does not report the same change again
    expect(seen).toEqual(['external', 'external']);
  });
});
