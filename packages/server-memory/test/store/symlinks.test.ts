/** The file store on a memory file that is a symbolic link, and a `.corrupt` that is not a regular file. */
import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openFileStore } from '../../src/server.js';
import { processStart } from '../../src/store/lock.js';
import { referenceLoad, referenceSave, tempDir, unrelatedProcess, writeLock } from '../helpers.js';
import { capture, sample } from './fileFixture.js';

const posix = process.platform !== 'win32';

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
