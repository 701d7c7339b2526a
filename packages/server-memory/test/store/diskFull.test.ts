/**
 * A full disk, on a real file system: a small tmpfs (root on Linux; CI runs as root) filled so that
 * little room is left. A write that does not fit must fail whole (nothing of it on disk, nothing of it
 * in the graph), a compaction that does not fit must keep the snapshot and the journal, and every
 * acknowledged write must be there when the file is loaded again.
 */
import { closeSync, openSync, readdirSync, readFileSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { createLogger } from '@mcpkit/protocol-core';
import { connectInMemory } from '@mcpkit/protocol-core/testing';
import { describe, expect, it } from 'vitest';
import { createMemoryServer, type GraphStore, openFileStore } from '../../src/server.js';
import { appendDurablyTo, type WriteFn, writeTempFile } from '../../src/store/durable.js';
import { saveError } from '../../src/store/storeErrors.js';
import { call, text } from '../acceptanceSuite.js';
import { referenceSave, runsWithTmpfs, smallDisk, tempDir } from '../helpers.js';

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
    expect(lines.filter((l) => /could not fold the journal into the memory file on close/.test(l))).toEqual([
      expect.stringMatching(/kept as they were.*: the disk is full \(ENOSPC: no space left on device, write\)\n$/),
    ]);
    expect(readFileSync(path, 'utf8')).toBe(seed);
    expect(temps(disk.path)).toEqual([]);
    expect(await reload(path)).toEqual(['Seed', ...names]);
  });

  it('a compaction after a write that does not fit is logged and retried; the server keeps serving and nothing is lost', async () => {
    const { disk, path } = seeded(2 * MiB);
    using _disk = disk;
    const { lines, logger } = capture();
    const acknowledged: string[] = [];
    const foldFailed = () => lines.filter((l) => /could not fold the journal into the memory file \(.*will retry/.test(l)).length;
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

  it('a file with an unreadable line opens and reads on a full disk; writes fail until there is room, then the line is set aside', async () => {
    const disk = smallDisk(2 * MiB);
    using _disk = disk;
    const path = join(disk.path, 'memory.jsonl');
    writeFileSync(path, `${referenceSave({ entities: [big('Seed')], relations: [] })}\nnot a record`);
    disk.fill(4 * 1024);
    const { lines, logger } = capture();
    const store = await openFileStore({ path, compactDelayMs: 60_000, logger });
    try {
      await using s = await connectInMemory(createMemoryServer({ store }));
      expect(lines.join('')).toMatch(/could not set aside .*kept as they were.*the disk is full \(ENOSPC/);
      expect(await namesIn(store)).toEqual(['Seed']);
      const refused = await create(s.client, 'Later');
      expect(text(refused)).toMatch(/^Could not save the knowledge graph: the disk is full \(ENOSPC\); nothing was changed\./);
      expect(await namesIn(store)).toEqual(['Seed']);
      unlinkSync(join(disk.path, 'filler'));
      expect((await create(s.client, 'Later')).isError).toBeFalsy();
      expect(await namesIn(store)).toEqual(['Seed', 'Later']);
    } finally {
      await store.close();
    }
    expect(readFileSync(`${path}.corrupt`, 'utf8')).toBe('not a record\n');
    expect(await reload(path)).toEqual(['Seed', 'Later']);
  });
});

/**
 * The faults a real disk can answer a write with but a test cannot make it (EIO, EDQUOT; ENOSPC too,
 * everywhere): injected into the one call that writes, on real files.
 */
describe('faults in a write: each append is all or nothing, no short temp file is kept', () => {
  const faults = ['ENOSPC', 'EIO', 'EDQUOT'] as const;
  /** A write that puts down `first` bytes of what it is given, then fails with `code`. */
  const failingAfter = (first: number, code: string): WriteFn => {
    let calls = 0;
    return (fd, buffer, offset, length) => {
      if (calls++ > 0) throw Object.assign(new Error(`${code}: injected`), { code });
      return writeSync(fd, buffer, offset, Math.min(length, first));
    };
  };
  const journal = (dir: string) => {
    const path = join(dir, 'memory.jsonl.wal');
    writeFileSync(path, '{"header":1}\n{"op":"a"}\n');
    return path;
  };

  for (const code of faults) {
    it(`${code} after a short write: the append throws ${code} and the file is cut back to what it was`, () => {
      using dir = tempDir();
      const path = journal(dir.path);
      const before = readFileSync(path, 'utf8');
      const fd = openSync(path, 'a+');
      try {
        // The short write ends right after a whole first record: that record must not stay either.
        const data = '{"op":"b"}\n{"op":"c"}\n';
        expect(() => appendDurablyTo(fd, data, Buffer.byteLength(before), failingAfter(11, code))).toThrow(
          expect.objectContaining({ code }),
        );
      } finally {
        closeSync(fd);
      }
      expect(readFileSync(path, 'utf8')).toBe(before);
    });

    it(`${code} while writing a temp file: it throws ${code} and no temp file is left`, () => {
      using dir = tempDir();
      const target = join(dir.path, 'memory.jsonl');
      writeFileSync(target, 'old');
      expect(() => writeTempFile(target, ['a'.repeat(100), 'b'.repeat(100)], 0o600, failingAfter(150, code))).toThrow(
        expect.objectContaining({ code }),
      );
      expect(readdirSync(dir.path)).toEqual(['memory.jsonl']);
      expect(readFileSync(target, 'utf8')).toBe('old');
    });

    it(`${code} is told to the model in words, with nothing changed`, () => {
      const error = saveError(Object.assign(new Error('x'), { code }), '/m.jsonl', createLogger({ name: 't', write: () => {} }));
      expect(error.message).toMatch(new RegExp(`^Could not save the knowledge graph: the disk .+ \\(${code}\\); nothing was changed\\.`));
    });
  }

  it('short writes only: every byte is written, in as many writes as it takes', () => {
    using dir = tempDir();
    const path = journal(dir.path);
    const before = readFileSync(path, 'utf8');
    const fd = openSync(path, 'a+');
    const data = '{"op":"b","entities":[1,2,3]}\n{"op":"c"}\n';
    try {
      const threeAtATime: WriteFn = (f, buffer, offset, length) => writeSync(f, buffer, offset, Math.min(length, 3));
      expect(appendDurablyTo(fd, data, Buffer.byteLength(before), threeAtATime)).toBe(Buffer.byteLength(data));
    } finally {
      closeSync(fd);
    }
    expect(readFileSync(path, 'utf8')).toBe(before + data);
  });

  it('a write that puts down nothing is a full disk: ENOSPC, the file as it was', () => {
    using dir = tempDir();
    const path = journal(dir.path);
    const before = readFileSync(path, 'utf8');
    const fd = openSync(path, 'a+');
    try {
      let calls = 0;
      const thenNothing: WriteFn = (f, buffer, offset, length) => (calls++ === 0 ? writeSync(f, buffer, offset, Math.min(length, 4)) : 0);
      expect(() => appendDurablyTo(fd, '{"op":"b"}\n', Buffer.byteLength(before), thenNothing)).toThrow(
        expect.objectContaining({ code: 'ENOSPC' }),
      );
    } finally {
      closeSync(fd);
    }
    expect(readFileSync(path, 'utf8')).toBe(before);
  });
});
