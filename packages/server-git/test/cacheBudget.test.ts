/**
 * The memory budget (src/engine/cacheBudget.ts): every cache kept between calls is an entry of one
 * lru-cache sized in bytes, so together they stay under the budget, the least recently used going first
 * whatever its kind or repository; expiry runs on an injected clock (no waiting).
 */
import { describe, expect, it } from 'vitest';
import { createCacheBudget } from '../src/engine/cacheBudget.js';
import type { GitContext } from '../src/engine/context.js';
import { loadIndex } from '../src/engine/git/indexSnapshot.js';
import { DEFAULT_OBJECT_LIMITS } from '../src/engine/git/objectLimits.js';
import { readBlob, treeFiles } from '../src/engine/git/objects.js';
import { readCommitInfo } from '../src/engine/log/commits.js';
import { createRepoCache, openRepo } from '../src/engine/repo.js';
import { gitRepo, hasGit, write } from './helpers.js';

describe('cache budget', () => {
  it('evicts by bytes across parts, least recently used first, and drops a prefix', () => {
    const budget = createCacheBudget({ maxBytes: 1000 });
    const a = budget.part<string>('repo\u0000/a\u0000blobs');
    const b = budget.part<string>('repo\u0000/b\u0000trees');
    a.set('1', 'one', 300);
    b.set('1', 'uno', 300);
    a.set('2', 'two', 300);
    expect(budget.bytes).toBe(900);
    // Touch a/1, so b/1 is the least recently used when a/3 needs room.
    expect(a.get('1')).toBe('one');
    a.set('3', 'three', 300);
    expect(b.get('1')).toBeUndefined();
    expect([a.get('1'), a.get('2'), a.get('3')]).toEqual(['one', 'two', 'three']);
    expect(budget.bytes).toBe(900);
    // An entry over half the budget is not kept (and does not flush the rest).
    b.set('big', 'x', 501);
    expect(b.get('big')).toBeUndefined();
    expect(budget.bytes).toBe(900);
    budget.drop('repo\u0000/a\u0000');
    expect(budget.bytes).toBe(0);
  });

  it('expires an entry with a ttl on the injected clock', () => {
    let t = 0;
    const budget = createCacheBudget({ maxBytes: 1000, now: () => t });
    const part = budget.part<string>('p');
    part.set('k', 'v', 10, 100);
    part.set('forever', 'v', 10);
    t = 100;
    expect(part.get('k')).toBe('v');
    t = 101;
    expect(part.get('k')).toBeUndefined();
    t = 1e12;
    expect(part.get('forever')).toBe('v');
  });

  it.skipIf(!hasGit)("keeps a repository's trees, index, blobs and commits within the budget, re-reading what it evicted", async () => {
    using fx = gitRepo();
    const commits: string[] = [];
    for (let i = 0; i < 6; i++) {
      write(
        fx.repo,
        Object.fromEntries(Array.from({ length: 40 }, (_, j) => [`d${j % 4}/sub${i}/f${j}.txt`, `file ${i} ${j}\n`.repeat(20)])),
      );
      fx.git('add', '-A');
      fx.git('commit', '-q', '-m', `commit ${i}`);
      commits.push(fx.git('rev-parse', 'HEAD').trim());
    }
    // Small enough that six flattened trees (40–240 files each), the index and the blobs cannot all stay.
    const budget = createCacheBudget({ maxBytes: 400 * 1024 });
    const ctx = {
      roots: { list: async () => [fx.path] },
      repoCache: createRepoCache(16, {}, {}, budget),
      objectLimits: DEFAULT_OBJECT_LIMITS,
    } as unknown as GitContext;
    const repo = await openRepo(ctx, fx.repo);
    const first = await treeFiles(repo, commits[0]!);
    expect(await treeFiles(repo, commits[0]!)).toBe(first);
    for (const oid of commits) {
      const files = await treeFiles(repo, oid);
      for (const e of [...files.values()].slice(0, 20)) await readBlob(repo, e.oid);
      await readCommitInfo(repo, oid);
      loadIndex(repo);
      expect(budget.bytes).toBeGreaterThan(0);
      expect(budget.bytes).toBeLessThanOrEqual(budget.maxBytes);
    }
    // The first tree was evicted: asked again, it is flattened anew (a new map, the same files).
    const again = await treeFiles(repo, commits[0]!);
    expect(again).not.toBe(first);
    expect([...again.keys()]).toEqual([...first.keys()]);
    // The newest is still kept.
    const last = commits.at(-1)!;
    expect(await treeFiles(repo, last)).toBe(await treeFiles(repo, last));
    // Dropping the repository (after a fetch) frees its share.
    ctx.repoCache.drop(repo.gitdir);
    expect(budget.bytes).toBe(0);
  });
});
