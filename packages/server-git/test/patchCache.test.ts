import { describe, expect, it, vi } from 'vitest';
import { createCacheBudget } from '../src/engine/cacheBudget.js';
import { createPatchCache } from '../src/engine/diff/patchCache.js';
import { connect, gitRepo, hasGit, text, write } from './helpers.js';

const renders = vi.hoisted(() => ({ count: 0 }));
vi.mock('../src/engine/diff/changes.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../src/engine/diff/changes.js')>();
  return {
    ...actual,
    renderPatches: (...args: Parameters<typeof actual.renderPatches>) => {
      renders.count++;
      return actual.renderPatches(...args);
    },
  };
});

describe('patch cache', () => {
  it.skipIf(!hasGit)('further pages of a diff and of git_show are cut from the patch computed for the first page', async () => {
    using fx = gitRepo();
    const big = Array.from({ length: 3000 }, (_, i) => `line ${i}`).join('\n');
    write(fx.repo, { 'test.txt': big });
    await using pair = await connect({ repositories: [fx.path] });
    const pageAll = async (name: string, args: Record<string, unknown>) => {
      const before = renders.count;
      let cursor: string | undefined;
      let pages = 0;
      do {
        const res = await pair.client.callTool({
          name,
          arguments: { repo_path: fx.repo, max_bytes: 4096, ...args, ...(cursor ? { cursor } : {}) },
        });
        expect(res.isError, text(res)).toBeFalsy();
        cursor = (res.structuredContent as { next_cursor?: string }).next_cursor;
        pages++;
      } while (cursor);
      return { pages, renders: renders.count - before };
    };
    const diff = await pageAll('git_diff_unstaged', {});
    expect(diff.pages).toBeGreaterThan(3);
    expect(diff.renders).toBe(1);
    fx.git('commit', '-q', '-a', '-m', 'big');
    const show = await pageAll('git_show', { revision: 'HEAD' });
    expect(show.pages).toBeGreaterThan(3);
    expect(show.renders).toBe(1);
    // A cursor from another repository state misses the cache and is refused, as before.
    write(fx.repo, { 'test.txt': big.replace(/line/g, 'LINE') });
    const first = await pair.client.callTool({ name: 'git_diff_unstaged', arguments: { repo_path: fx.repo, max_bytes: 4096 } });
    write(fx.repo, { 'test.txt': 'something else' });
    const stale = await pair.client.callTool({
      name: 'git_diff_unstaged',
      arguments: { repo_path: fx.repo, max_bytes: 4096, cursor: (first.structuredContent as { next_cursor: string }).next_cursor },
    });
    expect(stale.isError, text(stale).slice(0, 300)).toBe(true);
  });

  it('is bounded by the shared budget in bytes and its entries expire on the budget clock', () => {
    let t = 0;
    const budget = createCacheBudget({ maxBytes: 2000, now: () => t });
    const cache = createPatchCache(budget, { ttlMs: 1000 });
    const other = createPatchCache(budget, { ttlMs: 1000 });
    const patch = (whole: string) => ({ whole, starts: [0], files: [] });
    cache.set('a', 'fa', patch('a'.repeat(500)));
    cache.set('b', 'fb', patch('b'.repeat(500)));
    // Another server's patches are apart (same key, another entry) but share the bytes.
    other.set('a', 'fa', patch('c'.repeat(500)));
    expect(cache.get('a', 'fa')?.whole).toBe('a'.repeat(500));
    expect(other.get('a', 'fa')?.whole).toBe('c'.repeat(500));
    cache.set('d', 'fd', patch('d'.repeat(500)));
    // Over 2000 bytes: the least recently used ('b') went.
    expect(cache.get('b', 'fb')).toBeUndefined();
    expect(budget.bytes).toBeLessThanOrEqual(2000);
    expect(cache.get('a', 'fa')?.whole).toBe('a'.repeat(500));
    expect(cache.get('a', 'other')).toBeUndefined();
    // Larger than half the budget: not kept.
    cache.set('big', 'fbig', patch('x'.repeat(1001)));
    expect(cache.get('big', 'fbig')).toBeUndefined();
    t = 999;
    expect(cache.get('d', 'fd')?.whole).toBe('d'.repeat(500));
    t = 1001;
    expect(cache.get('d', 'fd')).toBeUndefined();
    expect(other.get('a', 'fa')).toBeUndefined();
  });
});
