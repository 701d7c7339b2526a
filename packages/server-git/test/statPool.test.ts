import { lstatSync, mkdirSync, rmdirSync, symlinkSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import type { GitContext } from '../src/engine/context.js';
import { createStatPool, type StatLike, type StatPool } from '../src/engine/git/statPool.js';
import { worktreeState } from '../src/engine/git/worktreeState.js';
import { createRepoCache, openRepo } from '../src/engine/repo.js';
import { gitRepo, hasGit, tempDir, write } from './helpers.js';

/**
 * The answer of a list the helper thread took part in: a large list starts the helper, which is up once it has
 * said so (state, waited on); the next large list is then shared.
 */
async function untilShared(pool: StatPool, dir: string, rels: readonly string[]): Promise<(StatLike | null)[]> {
  pool.lstatAll(dir, rels);
  await vi.waitFor(() => expect(pool.helperState()).toBe('up'), { timeout: 10_000, interval: 10 });
  const before = pool.helperLstats();
  const answer = pool.lstatAll(dir, rels);
  expect(pool.helperLstats(), 'the helper thread took part').toBeGreaterThan(before);
  return answer;
}

const fields = (st: StatLike | null) => st && { mode: st.mode, size: st.size, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, ino: st.ino };

/** The oracle: plain `lstatSync` on this thread (not the pool's own `lstatOrNull`, which is under test). */
function lstatOrNull(path: string) {
  try {
    return lstatSync(path);
  } catch {
    return null;
  }
}

describe('the lstat pool', () => {
  it('answers as lstatSync does, with the helper thread and without: files, links, folders, missing paths, paths under a file', async () => {
    using dir = tempDir();
    write(dir.path, { 'a.txt': 'a', 'sub/b.txt': 'bb', 'sub/c.txt': 'ccc' });
    symlinkSync('a.txt', join(dir.path, 'link'));
    symlinkSync('sub', join(dir.path, 'dirlink'));
    const old = new Date(Date.now() - 86_400_000);
    for (const rel of ['a.txt', 'sub/b.txt']) utimesSync(join(dir.path, rel), old, old); // mtime ≠ ctime
    const rels = ['a.txt', 'sub/b.txt', 'link', 'dirlink', 'sub', 'missing.txt', 'a.txt/under-a-file', 'sub/c.txt', 'nope/deeper'];
    // A long list, so both threads have their part of every kind of path.
    const many = Array.from({ length: 8 }, () => rels).flat();
    const expected = many.map((rel) => fields(lstatOrNull(join(dir.path, rel))));
    const threaded = createStatPool({ minBatch: 8, threads: true });
    try {
      expect((await untilShared(threaded, dir.path, many)).map(fields)).toEqual(expected);
      expect(threaded.helperLstats()).toBeGreaterThan(0);
      expect(threaded.lstatAll(dir.path, many).map(fields)).toEqual(expected);
    } finally {
      await threaded.close();
    }
    const single = createStatPool({ threads: false, minBatch: 8 });
    expect(single.lstatAll(dir.path, many).map(fields)).toEqual(expected);
    expect(single.helperLstats()).toBe(0);
  });

  it('throws an lstat error other than "missing", as on one thread, whichever thread met it', async () => {
    using dir = tempDir();
    write(dir.path, { 'a.txt': 'a' });
    const tooLong = 'x'.repeat(300); // ENAMETOOLONG
    const pool = createStatPool({ minBatch: 4, threads: true });
    try {
      await untilShared(pool, dir.path, ['a.txt', 'a.txt', 'a.txt', 'a.txt']);
      expect(() => pool.lstatAll(dir.path, [tooLong, 'a.txt', 'a.txt', 'a.txt'])).toThrow(/ENAMETOOLONG/); // the helper's part
      expect(() => pool.lstatAll(dir.path, ['a.txt', 'a.txt', 'a.txt', tooLong])).toThrow(/ENAMETOOLONG/); // this thread's
      expect(pool.lstatAll(dir.path, ['a.txt', 'a.txt', 'a.txt', 'a.txt']).every((st) => st?.size === 1)).toBe(true);
    } finally {
      await pool.close();
    }
  });

  it('still answers, on the calling thread, once closed', async () => {
    using dir = tempDir();
    write(dir.path, { 'a.txt': 'a' });
    const pool = createStatPool({ minBatch: 2, threads: true });
    await untilShared(pool, dir.path, ['a.txt', 'a.txt']);
    await pool.close();
    const shared = pool.helperLstats();
    expect(pool.lstatAll(dir.path, ['a.txt', 'gone']).map((st) => st?.size ?? null)).toEqual([1, null]);
    expect(pool.helperLstats()).toBe(shared);
  });

  it('stops the helper thread when it has been idle, and starts it again for the next large list', async () => {
    using dir = tempDir();
    write(dir.path, { 'a.txt': 'a' });
    // The idle stop is a pure timer: the test moves its clock (vi.waitFor moves it too, by far less than idleMs).
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const idleMs = 60_000;
    const pool = createStatPool({ minBatch: 2, threads: true, idleMs });
    try {
      await untilShared(pool, dir.path, ['a.txt', 'a.txt']);
      expect(pool.helperState()).toBe('up');
      vi.advanceTimersByTime(idleMs - 1);
      expect(pool.helperState()).toBe('up');
      vi.advanceTimersByTime(1);
      expect(pool.helperState()).toBe('idle');
      const before = pool.helperLstats();
      expect(pool.lstatAll(dir.path, ['a.txt', 'gone']).map((st) => st?.size ?? null)).toEqual([1, null]); // on this thread
      expect(pool.helperState()).toBe('starting');
      await untilShared(pool, dir.path, ['a.txt', 'a.txt']);
      expect(pool.helperLstats()).toBeGreaterThan(before);
    } finally {
      await pool.close();
      vi.useRealTimers();
    }
    expect(pool.helperState()).toBe('off');
  });

  it.skipIf(!hasGit)('a status through the helper thread is git status: changes, deletions, files behind a symlinked folder', async () => {
    using fx = gitRepo();
    const files: Record<string, string> = {};
    for (let d = 0; d < 6; d++) for (let f = 0; f < 20; f++) files[`d${d}/f${f}.txt`] = `${d}/${f}\n`;
    write(fx.repo, { ...files, 'linked/a.txt': 'a', 'linked/b.txt': 'b' });
    fx.git('add', '.');
    fx.git('commit', '-q', '-m', 'many');
    // A committed folder replaced by a link to another folder with the same names: git sees its files deleted.
    mkdirSync(join(fx.path, 'elsewhere'));
    writeFileSync(join(fx.path, 'elsewhere', 'a.txt'), 'a');
    writeFileSync(join(fx.path, 'elsewhere', 'b.txt'), 'b');
    for (const name of ['a.txt', 'b.txt']) unlinkSync(join(fx.repo, 'linked', name));
    const linked = join(fx.repo, 'linked');
    rmdirSync(linked);
    symlinkSync(join(fx.path, 'elsewhere'), linked);
    writeFileSync(join(fx.repo, 'd1', 'f3.txt'), 'changed\n');
    unlinkSync(join(fx.repo, 'd4', 'f19.txt'));
    const old = new Date(Date.now() - 60_000);
    utimesSync(join(fx.repo, 'd5', 'f0.txt'), old, old); // stat differs, content the same: unchanged

    const repoCache = createRepoCache(16, { minBatch: 16, threads: true });
    const ctx = { roots: { list: async () => [fx.path] }, repoCache } as unknown as GitContext;
    try {
      const expected = {
        changed: [
          ['d1/f3.txt', fx.git('hash-object', 'd1/f3.txt').trim()],
          ['d4/f19.txt', null],
          ['linked/a.txt', null],
          ['linked/b.txt', null],
        ],
        untracked: ['linked'],
      };
      const summary = (state: Awaited<ReturnType<typeof worktreeState>>) => ({
        changed: [...state.changed].map(([path, e]) => [path, e?.oid ?? null]).sort(),
        untracked: state.untracked,
      });
      expect(summary(await worktreeState(await openRepo(ctx, fx.repo)))).toEqual(expected);
      // The first status started the helper thread; statuses until one was shared with it (state, polled).
      await vi.waitFor(
        async () => {
          expect(summary(await worktreeState(await openRepo(ctx, fx.repo)))).toEqual(expected);
          expect(repoCache.stats.helperLstats()).toBeGreaterThan(0);
        },
        { timeout: 10_000, interval: 10 },
      );
      expect(fx.git('status', '--porcelain', '-uall').split('\n').filter(Boolean).sort()).toEqual([
        ' D d4/f19.txt',
        ' D linked/a.txt',
        ' D linked/b.txt',
        ' M d1/f3.txt',
        '?? linked',
      ]);
    } finally {
      await repoCache.close();
    }
  });
});
