/**
 * A full disk, on a real file system: a small tmpfs (root on Linux; CI runs as root) filled so that
 * little room is left. A write that does not fit must fail whole (nothing of it on disk, nothing of it
 * in the graph), a compaction that does not fit must keep the snapshot and the journal, and every
 * acknowledged write must be there when the file is loaded again.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createLogger } from '@mcpkit/protocol-core';
import { connectInMemory } from '@mcpkit/protocol-core/testing';
import { describe, expect, it } from 'vitest';
import { createMemoryServer, type GraphStore, openFileStore } from '../../src/server.js';
import { call, text } from '../acceptanceSuite.js';
import { referenceSave, runsWithTmpfs, smallDisk } from '../helpers.js';

const MiB = 1024 * 1024;
/** An entity of about 7 KB: a disk with 150 KiB left takes some 20 of them. */
const big = (name: string) => ({ name, entityType: 'note', observations: [`${name} ${'x'.repeat(7000)}`] });

function capture() {
  const lines: string[] = [];
  return { lines, logger: createLogger({ name: 't', level: 'debug', write: (l) => lines.push(l) }) };
}

const namesIn = async (store: GraphStore) => (await store.readGraph()).entities.map((e) => e.name);

/** The entities a fresh store loads from `path`. */
async function reload(path: string): Promise<string[]> {
  const store = await openFileStore({ path, compactDelayMs: 60_000 });
  try {
    return await namesIn(store);
  } finally {
    await store.close();
  }
}

/** A memory file holding one entity, `Seed`, on a fresh small disk: the first write goes to the journal. */
function seeded(bytes: number) {
  const disk = smallDisk(bytes);
  const path = join(disk.path, 'memory.jsonl');
  const seed = referenceSave({ entities: [big('Seed')], relations: [] });
  writeFileSync(path, seed);
  return { disk, path, seed };
}

const create = async (client: Parameters<typeof call>[0], name: string) => call(client, 'create_entities', { entities: [big(name)] });
const temps = (dir: string) => readdirSync(dir).filter((n) => n.endsWith('.tmp'));

describe.runIf(runsWithTmpfs)('a full disk (a real tmpfs)', () => {
  it('a write that does not fit fails ("the disk is full … nothing was changed"), leaves nothing of itself, and loses no acknowledged write', async () => {
    const { disk, path } = seeded(2 * MiB);
    using _disk = disk;
    const { lines, logger } = capture();
    const acknowledged: string[] = [];
    const failed: string[] = [];
    const errors: string[] = [];
    {
      const store = await openFileStore({ path, compactDelayMs: 60_000, logger });
      await using s = await connectInMemory(createMemoryServer({ store }));
      disk.fill(150 * 1024);
      for (let i = 0; failed.length < 3 && i < 200; i++) {
        const r = await create(s.client, `N${i}`);
        if (r.isError) {
          failed.push(`N${i}`);
          errors.push(text(r));
        } else acknowledged.push(`N${i}`);
      }
      expect(acknowledged.length).toBeGreaterThan(5);
      expect(failed).toHaveLength(3);
      // The graph the server answers from is the graph on disk: no failed entity in it.
      expect(await namesIn(store)).toEqual(['Seed', ...acknowledged]);
      // No torn line is left at the end of the journal.
      expect(readFileSync(`${path}.wal`, 'utf8').endsWith('\n')).toBe(true);
      await store.close();
    }
    expect(await reload(path)).toEqual(['Seed', ...acknowledged]);
    expect(lines.join('')).not.toMatch(/dropped an incomplete journal record/);
    for (const e of errors) expect(e).toMatch(/^Could not save the knowledge graph: the disk is full \(ENOSPC\); nothing was changed\./);
  });

  it('a compaction on close that does not fit keeps the snapshot and the journal: nothing acknowledged is lost', async () => {
    const { disk, path, seed } = seeded(2 * MiB);
    using _disk = disk;
    const { lines, logger } = capture();
    const names = Array.from({ length: 8 }, (_, i) => `C${i}`);
    {
      const store = await openFileStore({ path, compactDelayMs: 60_000, logger });
      await using s = await connectInMemory(createMemoryServer({ store }));
      // Room for the 8 journal records, not for a snapshot holding them too.
      disk.fill(80 * 1024);
      for (const name of names) expect((await create(s.client, name)).isError).toBeFalsy();
      await store.close();
    }
    expect(lines.filter((l) => /could not fold the journal into the memory file on close/.test(l))).toHaveLength(1);
    expect(lines.join('')).toMatch(/ENOSPC/);
    expect(readFileSync(path, 'utf8')).toBe(seed);
    expect(temps(disk.path)).toEqual([]);
    expect(await reload(path)).toEqual(['Seed', ...names]);
  });

  it('a compaction after a write that does not fit is logged and retried; the server keeps serving and nothing is lost', async () => {
    const { disk, path } = seeded(2 * MiB);
    using _disk = disk;
    const { lines, logger } = capture();
    const acknowledged: string[] = [];
    const foldFailed = () => lines.filter((l) => /could not fold the journal into the memory file \(will retry/.test(l)).length;
    const headerOnly = () => readFileSync(`${path}.wal`, 'utf8').split('\n').length === 2;
    {
      // A compaction right after each write: the snapshot grows until its temp file no longer fits beside it.
      const store = await openFileStore({ path, compactDelayMs: 0, logger });
      await using s = await connectInMemory(createMemoryServer({ store }));
      disk.fill(80 * 1024);
      const write = async (name: string) => {
        const failedBefore = foldFailed();
        expect((await create(s.client, name)).isError).toBeFalsy();
        acknowledged.push(name);
        // Its compaction has run: it emptied the journal, or it failed.
        await expect.poll(() => headerOnly() || foldFailed() > failedBefore).toBe(true);
      };
      for (let i = 0; foldFailed() === 0 && i < 20; i++) await write(`K${i}`);
      expect(foldFailed()).toBe(1);
      expect(lines.join('')).toMatch(/ENOSPC/);
      expect(temps(disk.path)).toEqual([]);
      // Still serving, from the journal; the next compaction fails the same way.
      await write('After');
      expect(foldFailed()).toBe(2);
      expect(await namesIn(store)).toEqual(['Seed', ...acknowledged]);
      await store.close();
    }
    expect(temps(disk.path)).toEqual([]);
    expect(await reload(path)).toEqual(['Seed', ...acknowledged]);
  });
});
