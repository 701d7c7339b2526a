import { spawnSync } from 'node:child_process';
import {
  appendFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  statSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { createLogger, ToolError } from '@mcpkit/protocol-core';
import { describe, expect, it } from 'vitest';
import { type FileStoreOptions, ForeignFileError, type GraphStore, openFileStore } from '../src/server.js';
import { processStart } from '../src/store/lock.js';
import { referenceLoad, referenceSave, tempDir, unrelatedProcess, writeLock } from './helpers.js';
import { testStore } from './storeSuite.js';

function capture() {
  const lines: string[] = [];
  return { lines, logger: createLogger({ name: 't', level: 'debug', write: (l) => lines.push(l) }) };
}

/** A temp folder with `memory.jsonl` and stores opened on it, all closed and removed on dispose. */
async function fixture(options: Partial<FileStoreOptions> = {}, files: Record<string, string> = {}) {
  const dir = tempDir();
  const path = join(dir.path, 'memory.jsonl');
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir.path, name), text);
  const opened: GraphStore[] = [];
  const open = async (more: Partial<FileStoreOptions> = {}) => {
    const store = await openFileStore({ path, compactDelayMs: 60_000, lockStaleMs: 2000, ...options, ...more });
    opened.push(store);
    return store;
  };
  const store = await open();
  return {
    dir: dir.path,
    path,
    store,
    open,
    reopen: () => open(),
    text: () => readFileSync(path, 'utf8'),
    async [Symbol.asyncDispose]() {
      for (const s of opened) await s.close();
      dir[Symbol.dispose]();
    },
  };
}

testStore('file (small graph: whole-file rewrites)', () => fixture());
testStore('file (journal)', () => fixture({ smallFileBytes: 0 }));

const sample = {
  entities: [
    { name: 'Alice', entityType: 'person', observations: ['likes tea'] },
    { name: 'Bob', entityType: 'person', observations: [] },
  ],
  relations: [{ from: 'Alice', to: 'Bob', relationType: 'knows' }],
};

describe('file format: the reference’s, line for line', () => {
  it('33. writes entities then relations, reference key order, no trailing newline', async () => {
    await using f = await fixture();
    await f.store.createEntities(sample.entities);
    await f.store.createRelations(sample.relations);
    // Every write goes to the journal first; closing folds it into the file.
    await f.store.close();
    expect(f.text()).toBe(referenceSave(sample));
    const lines = f.text().split('\n');
    expect(lines.map((l) => JSON.parse(l).type)).toEqual(['entity', 'entity', 'relation']);
    expect(referenceLoad(f.text())).toEqual(sample);
  });

  it('a journal-mode graph is folded into the same file on close', async () => {
    await using f = await fixture({ smallFileBytes: 0 });
    await f.store.createEntities(sample.entities);
    await f.store.createRelations(sample.relations);
    expect(existsSync(`${f.path}.wal`)).toBe(true);
    await f.store.close();
    expect(f.text()).toBe(referenceSave(sample));
    expect(existsSync(`${f.path}.wal`)).toBe(true);
    const again = await f.open();
    expect(await again.readGraph()).toMatchObject(sample);
  });

  it('folds the journal in a moment after the last write (compactDelayMs)', async () => {
    await using f = await fixture({ smallFileBytes: 0, compactDelayMs: 30 });
    await f.store.createEntities(sample.entities);
    await f.store.createRelations(sample.relations);
    await new Promise((r) => setTimeout(r, 300));
    expect(f.text()).toBe(referenceSave(sample));
  });

  it('loads a reference file unchanged: trailing newline, CRLF, duplicate names and relations, other record types', async () => {
    const text = [
      '{"type":"_aim","source":"mcp-knowledge-graph"}',
      '{"type":"entity","name":"Alice","entityType":"person","observations":["likes tea"]}\r',
      '{"type":"entity","name":"Alice","entityType":"dup","observations":[]}',
      '{"type":"entity","name":"NoObs","entityType":"t"}',
      '{"type":"relation","from":"Alice","to":"B","relationType":"r"}',
      '{"type":"relation","from":"Alice","to":"B","relationType":"r"}',
      '',
    ].join('\n');
    await using f = await fixture({}, { 'memory.jsonl': text });
    const g = await f.store.readGraph();
    expect(g.entities).toEqual([
      { name: 'Alice', entityType: 'person', observations: ['likes tea'] },
      { name: 'Alice', entityType: 'dup', observations: [] },
      { name: 'NoObs', entityType: 't', observations: [] },
    ]);
    expect(g.relations).toHaveLength(2);
    // The entity without observations no longer breaks search (servers#1818).
    expect((await f.store.searchNodes('noobs')).entities).toHaveLength(1);
    // Both Alices open; add_observations goes to the first, as in the reference.
    expect((await f.store.openNodes(['Alice'])).entities).toHaveLength(2);
    await f.store.addObservations([{ entityName: 'Alice', contents: ['x'] }]);
    await f.store.close(); // folds the journal into the file
    const lines = f.text().split('\n');
    expect(lines[0]).toBe('{"type":"_aim","source":"mcp-knowledge-graph"}');
    expect(lines.slice(1)).toEqual([
      '{"type":"entity","name":"Alice","entityType":"person","observations":["likes tea","x"]}',
      '{"type":"entity","name":"Alice","entityType":"dup","observations":[]}',
      '{"type":"entity","name":"NoObs","entityType":"t","observations":[]}',
      '{"type":"relation","from":"Alice","to":"B","relationType":"r"}',
      '{"type":"relation","from":"Alice","to":"B","relationType":"r"}',
    ]);
    expect(referenceLoad(f.text()).entities).toHaveLength(3);
  });

  it('creates a new file with mode 0600 and keeps the mode of an existing one', async () => {
    if (process.platform === 'win32') return;
    await using f = await fixture();
    await f.store.createEntities(sample.entities);
    expect(statSync(f.path).mode & 0o777).toBe(0o600);
    await using g = await fixture({}, { 'memory.jsonl': '' });
    const { chmodSync } = await import('node:fs');
    chmodSync(g.path, 0o640);
    await g.store.createEntities(sample.entities);
    expect(statSync(g.path).mode & 0o777).toBe(0o640);
  });

  it('creates missing parent folders', async () => {
    using dir = tempDir();
    const path = join(dir.path, 'a', 'b', 'memory.jsonl');
    const store = await openFileStore({ path });
    await store.createEntities(sample.entities);
    await store.close();
    expect(referenceLoad(readFileSync(path, 'utf8')).entities).toHaveLength(2);
  });
});

describe('corrupt lines and foreign files', () => {
  it('reports a corrupt line, loads the rest, and moves the line verbatim to memory.jsonl.corrupt', async () => {
    const bad = '{"type":"entity","name":"Half';
    const text = `${referenceSave(sample).split('\n')[0]}\n${bad}\n${referenceSave(sample).split('\n').slice(1).join('\n')}`;
    const { lines, logger } = capture();
    using dir = tempDir();
    const path = join(dir.path, 'memory.jsonl');
    writeFileSync(path, text);
    const store = await openFileStore({ path, logger });
    expect((await store.readGraph()).entities).toHaveLength(2);
    expect(lines.join('')).toMatch(/line 2 is not a valid record/);
    expect(readFileSync(`${path}.corrupt`, 'utf8')).toBe(`${bad}\n`);
    // The file is a clean reference file again, and the line is not lost on later saves.
    expect(referenceLoad(readFileSync(path, 'utf8'))).toEqual(sample);
    await store.createEntities([{ name: 'C', entityType: 't', observations: [] }]);
    await store.close();
    expect(readFileSync(`${path}.corrupt`, 'utf8')).toBe(`${bad}\n`);
  });

  it('refuses to open a file that is not a memory graph, and leaves it untouched', async () => {
    for (const text of ['{\n  "editor.fontSize": 14\n}\n', 'export PATH=/usr/bin\n', '{"test":"data"}', '[1,2,3]']) {
      using dir = tempDir();
      const path = join(dir.path, 'settings.json');
      writeFileSync(path, text);
      await expect(openFileStore({ path })).rejects.toBeInstanceOf(ForeignFileError);
      expect(readFileSync(path, 'utf8')).toBe(text);
      expect(readdirSync(dir.path)).toEqual(['settings.json']);
    }
  });

  it('refuses a directory', async () => {
    using dir = tempDir();
    mkdirSync(join(dir.path, 'memory.jsonl'));
    await expect(openFileStore({ path: join(dir.path, 'memory.jsonl') })).rejects.toBeInstanceOf(ForeignFileError);
  });

  it('refuses to overwrite the file when it is replaced by a foreign one while running', async () => {
    await using f = await fixture();
    await f.store.createEntities(sample.entities);
    writeFileSync(f.path, '# my notes\nnot json\n');
    await expect(f.store.createEntities([{ name: 'X', entityType: 't', observations: [] }])).rejects.toThrow(
      'The memory file was replaced by something that is not a knowledge graph; refusing to read or overwrite it.',
    );
    await expect(f.store.readGraph()).rejects.toThrow(/not a knowledge graph/);
    expect(f.text()).toBe('# my notes\nnot json\n');
  });
});

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
    await new Promise((r) => setTimeout(r, 200));
    expect(f.text()).toBe(referenceSave({ entities: sample.entities, relations: [] }));
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
    await new Promise((r) => setTimeout(r, 200));
    stop();
    expect(seen).toEqual(['external', 'external']);
  });
});

const linux = process.platform === 'linux';
const posix = process.platform !== 'win32';
const elapsed = async <T>(p: Promise<T>): Promise<[T, number]> => {
  const t0 = performance.now();
  const value = await p;
  return [value, performance.now() - t0];
};

describe('a lock held by another process', () => {
  it.runIf(linux)('a lock naming a live process that did not write it (pid reused) holds nothing up', async () => {
    using dir = tempDir();
    using other = unrelatedProcess();
    const path = join(dir.path, 'memory.jsonl');
    // The server that wrote it was killed; `other` got its pid. This used to wait for `other` to exit, 60 s per call.
    writeLock(`${path}.lock`, other.pid, { id: `${processStart(other.pid)!.id!.split(':')[0]}:1` });
    const [store, openMs] = await elapsed(openFileStore({ path, lockTimeoutMs: 60_000 }));
    const [, writeMs] = await elapsed(store.createEntities(sample.entities));
    await store.close();
    // Bounded by the contract, the 60 s lock timeout it must not sit out: a factor of it, not a wall-clock figure.
    expect(openMs + writeMs).toBeLessThan(60_000 / 10);
    expect(referenceLoad(readFileSync(path, 'utf8'))).toEqual({ entities: sample.entities, relations: [] });
    expect(existsSync(`${path}.lock`)).toBe(false);
  });

  it.runIf(posix)('openWhenLocked defer: opens at once while the owner holds the lock; the first call waits for it', async () => {
    using dir = tempDir();
    using owner = unrelatedProcess();
    const path = join(dir.path, 'memory.jsonl');
    writeFileSync(path, referenceSave({ entities: [sample.entities[0]!], relations: [] }));
    writeLock(`${path}.lock`, owner.pid, { id: processStart(owner.pid)?.id });
    const { lines, logger } = capture();
    const [store, openMs] = await elapsed(openFileStore({ path, logger, openWhenLocked: 'defer', lockTimeoutMs: 10_000 }));
    expect(openMs).toBeLessThan(10_000 / 2); // the owner holds the lock throughout: open did not wait the 10 s for it
    expect(lines.join('')).toContain(`memory.jsonl.lock is held by process ${owner.pid} since`);
    let done = false;
    const write = store.createEntities([sample.entities[1]!]).finally(() => {
      done = true;
    });
    await new Promise((r) => setTimeout(r, 300));
    expect(done).toBe(false);
    unlinkSync(`${path}.lock`); // the owner finishes
    await write;
    expect((await store.readGraph()).entities).toEqual(sample.entities);
    await store.close();
    expect(referenceLoad(readFileSync(path, 'utf8')).entities).toEqual(sample.entities);
  });

  it.runIf(posix)(
    'a call that cannot get the lock in time fails with a clear error naming the holder; later calls still work',
    async () => {
      using dir = tempDir();
      using owner = unrelatedProcess();
      const path = join(dir.path, 'memory.jsonl');
      writeLock(`${path}.lock`, owner.pid, { id: processStart(owner.pid)?.id });
      const store = await openFileStore({ path, openWhenLocked: 'defer', lockTimeoutMs: 2000 });
      // Calls queued behind the stuck lock give up in time too, not one timeout after another: the three end
      // after one timeout and before three (a factor of the timeout, with its room for a loaded machine).
      const [results, ms] = await elapsed(
        Promise.allSettled([store.readGraph(), store.createEntities(sample.entities), store.searchNodes('a')]),
      );
      expect(ms).toBeGreaterThanOrEqual(2000 - 50);
      expect(ms).toBeLessThan(2000 * 3);
      for (const r of results) {
        expect(r.status).toBe('rejected');
        const reason = (r as PromiseRejectedResult).reason;
        expect(reason).toBeInstanceOf(ToolError);
        expect(reason.message).toMatch(
          new RegExp(
            `^The memory file is locked by another mcp-server-memory \\(process ${owner.pid} since [^)]+\\) that did not release it within 2 s; nothing was read or changed`,
          ),
        );
      }
      unlinkSync(`${path}.lock`);
      await store.createEntities(sample.entities);
      expect((await store.readGraph()).entities).toEqual(sample.entities);
      await store.close();
    },
  );
});

describe.runIf(posix)('symbolic links', () => {
  /** `links/memory.jsonl` → `../real/target.jsonl` (relative, as `ln -s` makes them). */
  function linked() {
    const dir = tempDir();
    mkdirSync(join(dir.path, 'links'));
    mkdirSync(join(dir.path, 'real'));
    const link = join(dir.path, 'links', 'memory.jsonl');
    const target = join(dir.path, 'real', 'target.jsonl');
    symlinkSync('../real/target.jsonl', link);
    return { dir: dir.path, link, target, [Symbol.dispose]: () => dir[Symbol.dispose]() };
  }

  for (const mode of [{ smallFileBytes: 256 * 1024 }, { smallFileBytes: 0 }]) {
    const label = mode.smallFileBytes ? 'small graph' : 'journal';
    it(`${label}: writes go to the target and the link stays a link; journal and lock sit beside the target`, async () => {
      using f = linked();
      writeFileSync(f.target, referenceSave({ entities: [sample.entities[0]!], relations: [] }));
      const store = await openFileStore({ path: f.link, compactDelayMs: 60_000, ...mode });
      await store.createEntities([sample.entities[1]!]);
      await store.createRelations(sample.relations);
      expect(readdirSync(join(f.dir, 'links'))).toEqual(['memory.jsonl']);
      // Every write goes through the journal now, whatever the size (it used to be `!mode.smallFileBytes`).
      expect(existsSync(`${f.target}.wal`)).toBe(true);
      await store.close();
      expect(lstatSync(f.link).isSymbolicLink()).toBe(true);
      expect(readlinkSync(f.link)).toBe('../real/target.jsonl');
      expect(readFileSync(f.target, 'utf8')).toBe(referenceSave(sample));
      // Later writes keep going to the target (this used to replace the link by a file and never write the target again).
      const again = await openFileStore({ path: f.link, ...mode });
      await again.deleteRelations(sample.relations);
      await again.close();
      expect(referenceLoad(readFileSync(f.target, 'utf8')).relations).toEqual([]);
      expect(lstatSync(f.link).isSymbolicLink()).toBe(true);
    });
  }

  it('a dangling link (the target does not exist yet) and a chain of links: the first write creates the target', async () => {
    using f = linked();
    const outer = join(f.dir, 'outer.jsonl');
    symlinkSync(f.link, outer);
    const store = await openFileStore({ path: outer });
    await store.createEntities(sample.entities);
    await store.close();
    expect(lstatSync(outer).isSymbolicLink() && lstatSync(f.link).isSymbolicLink()).toBe(true);
    expect(referenceLoad(readFileSync(f.target, 'utf8')).entities).toEqual(sample.entities);
  });

  it('a store opened through the link and one opened through the target share one lock and see each other’s writes', async () => {
    using f = linked();
    const viaLink = await openFileStore({ path: f.link, lockTimeoutMs: 200 });
    const viaTarget = await openFileStore({ path: f.target, lockTimeoutMs: 200 });
    await viaLink.createEntities([sample.entities[0]!]);
    await viaTarget.createEntities([sample.entities[1]!]);
    expect((await viaLink.readGraph()).entities).toEqual(sample.entities);
    expect((await viaTarget.readGraph()).entities).toEqual(sample.entities);
    // Another process holding the target's lock holds up a writer that opened the link.
    using owner = unrelatedProcess();
    writeLock(`${f.target}.lock`, owner.pid, { id: processStart(owner.pid)?.id });
    await expect(viaLink.createRelations(sample.relations)).rejects.toThrow(/locked by another mcp-server-memory/);
    unlinkSync(`${f.target}.lock`);
    await viaLink.close();
    await viaTarget.close();
  });

  it('never writes through a .corrupt that is a symbolic link: the link is moved aside, a regular file takes its place', async () => {
    using dir = tempDir();
    const path = join(dir.path, 'memory.jsonl');
    const victim = join(dir.path, 'victim.txt');
    writeFileSync(victim, 'keep me\n');
    symlinkSync(victim, `${path}.corrupt`);
    const bad = '{"type":"entity","name":"Half';
    writeFileSync(path, `${referenceSave({ entities: [sample.entities[0]!], relations: [] })}\n${bad}`);
    const { lines, logger } = capture();
    const store = await openFileStore({ path, logger });
    await store.close();
    expect(readFileSync(victim, 'utf8')).toBe('keep me\n');
    expect(lstatSync(`${path}.corrupt`).isFile()).toBe(true);
    expect(readFileSync(`${path}.corrupt`, 'utf8')).toBe(`${bad}\n`);
    const aside = readdirSync(dir.path).filter((n) => n.endsWith('.symlink'));
    expect(aside).toHaveLength(1);
    expect(readlinkSync(join(dir.path, aside[0]!))).toBe(victim);
    expect(lines.join('')).toMatch(/memory\.jsonl\.corrupt was a symbolic link .*not writing through it/);
    expect(referenceLoad(readFileSync(path, 'utf8')).entities).toEqual([sample.entities[0]]);
  });

  it('a .corrupt that is not a regular file (a FIFO) is refused without hanging; the unreadable line stays in the file', async () => {
    using dir = tempDir();
    const path = join(dir.path, 'memory.jsonl');
    if (spawnSync('mkfifo', [`${path}.corrupt`]).status !== 0) return;
    const text = `${referenceSave({ entities: [sample.entities[0]!], relations: [] })}\n{"type":"entity","name":"Half`;
    writeFileSync(path, text);
    await expect(openFileStore({ path })).rejects.toThrow(
      'memory.jsonl.corrupt is not a regular file; refusing to set unreadable lines aside into it',
    );
    expect(readFileSync(path, 'utf8')).toBe(text);
  });
});
