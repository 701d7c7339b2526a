/**
 * Concurrent writers on one repository (issue item 3): git_add, git_commit and friends read the index
 * under index.lock and move refs under their locks, so no staged file and no commit is lost; a lock
 * held by someone else is waited for up to the timeout (the test's own clock), then the call fails
 * naming the lock and changes nothing. Checked with the git CLI (ls-files, ls-tree, rev-list, fsck).
 */
import { existsSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { LockOptions } from '../src/engine/git/repoWrites.js';
import { createRepoCache } from '../src/engine/repo.js';
import { connect, gitRepo, hasGit, text, write } from './helpers.js';

/** A clock that moves only when a lock wait sleeps; `onSleep` sees the time after each sleep. */
function testClock(onSleep: (now: number) => void = () => {}): Required<Pick<LockOptions, 'now' | 'sleep'>> & { elapsed(): number } {
  let now = 0;
  return {
    now: () => now,
    sleep: async (ms) => {
      now += ms;
      onSleep(now);
    },
    elapsed: () => now,
  };
}

const names = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}-${String(i).padStart(2, '0')}.txt`);

describe.skipIf(!hasGit)('concurrent writers', () => {
  it('2 sessions × 20 concurrent git_add of distinct new files: git ls-files lists all 40, fsck is clean', async () => {
    using fx = gitRepo();
    const files = [...names('a', 20), ...names('b', 20)];
    write(fx.repo, Object.fromEntries(files.map((f) => [f, `${f}\n`])));
    const repoCache = createRepoCache();
    await using one = await connect({ repositories: [fx.path], repoCache });
    await using two = await connect({ repositories: [fx.path], repoCache });
    const results = await Promise.all(
      files.map((f, i) => (i < 20 ? one : two).client.callTool({ name: 'git_add', arguments: { repo_path: fx.repo, files: [f] } })),
    );
    for (const r of results) expect([r.isError ?? false, text(r)]).toEqual([false, 'Files staged successfully']);
    expect(fx.git('ls-files').trim().split('\n').sort()).toEqual([...files, 'test.txt'].sort());
    fx.git('fsck', '--full', '--no-progress');
  });

  it('two servers with their own caches (no shared queue) contend on index.lock itself: nothing lost', async () => {
    using fx = gitRepo();
    const files = [...names('a', 20), ...names('b', 20)];
    write(fx.repo, Object.fromEntries(files.map((f) => [f, `${f}\n`])));
    // Real waits here: the other server's call holds the lock for as long as its add takes.
    const locks = { indexTimeoutMs: 60_000 };
    await using one = await connect({ repositories: [fx.path], repoCache: createRepoCache(16, {}, locks) });
    await using two = await connect({ repositories: [fx.path], repoCache: createRepoCache(16, {}, locks) });
    const results = await Promise.all(
      files.map((f, i) => (i % 2 ? one : two).client.callTool({ name: 'git_add', arguments: { repo_path: fx.repo, files: [f] } })),
    );
    for (const r of results) expect(text(r)).toBe('Files staged successfully');
    expect(fx.git('ls-files').trim().split('\n').sort()).toEqual([...files, 'test.txt'].sort());
    fx.git('fsck', '--full', '--no-progress');
  });

  it('2 sessions × 15 concurrent git_add + git_commit: every file reaches a commit, no commit is lost', async () => {
    using fx = gitRepo();
    const files = [...names('a', 15), ...names('b', 15)];
    write(fx.repo, Object.fromEntries(files.map((f) => [f, `${f}\n`])));
    const repoCache = createRepoCache();
    await using one = await connect({ repositories: [fx.path], repoCache });
    await using two = await connect({ repositories: [fx.path], repoCache });
    const results = await Promise.all(
      files.map(async (f, i) => {
        const { client } = i < 15 ? one : two;
        const added = await client.callTool({ name: 'git_add', arguments: { repo_path: fx.repo, files: [f] } });
        const committed = await client.callTool({ name: 'git_commit', arguments: { repo_path: fx.repo, message: `add ${f}` } });
        return [text(added), committed.isError ?? false];
      }),
    );
    for (const r of results) expect(r).toEqual(['Files staged successfully', false]);
    // Each commit came after its file's add, so HEAD holds every file; each commit is on the branch.
    expect(fx.git('ls-tree', '-r', '--name-only', 'HEAD').trim().split('\n').sort()).toEqual([...files, 'test.txt'].sort());
    expect(fx.git('rev-list', '--count', 'HEAD').trim()).toBe('31');
    expect(fx.git('diff', '--cached', '--name-only')).toBe('');
    fx.git('fsck', '--full', '--no-progress');
  });

  it('an index.lock held by someone else: git_add waits the timeout, then answers isError naming it; nothing changes', async () => {
    using fx = gitRepo();
    write(fx.repo, { 'new.txt': 'new\n' });
    const lock = join(fx.repo, '.git', 'index.lock');
    writeFileSync(lock, '');
    const before = readFileSync(join(fx.repo, '.git', 'index'));
    const clock = testClock();
    await using c = await connect({ repositories: [fx.path], repoCache: createRepoCache(16, {}, { indexTimeoutMs: 1500, ...clock }) });
    for (const [name, args] of [
      ['git_add', { files: ['new.txt'] }],
      ['git_commit', { message: 'x' }],
      ['git_reset', {}],
    ] as const) {
      const res = await c.client.callTool({ name, arguments: { repo_path: fx.repo, ...args } });
      expect(res.isError).toBe(true);
      expect(text(res)).toContain(`Unable to create '${lock}': File exists.`);
      expect(text(res)).toContain('Another git process seems to be running in this repository');
    }
    expect(clock.elapsed()).toBeGreaterThanOrEqual(3 * 1500);
    expect(readFileSync(join(fx.repo, '.git', 'index'))).toEqual(before);
    expect(existsSync(lock)).toBe(true); // a lock someone else holds is never broken
    expect(fx.git('rev-list', '--count', 'HEAD').trim()).toBe('1');
  });

  it('an index.lock held by someone else stops git_checkout, git_stash and git_merge too: HEAD, branches and files unchanged', async () => {
    using fx = gitRepo();
    fx.git('checkout', '-q', '-b', 'other');
    write(fx.repo, { 'o.txt': 'other\n' });
    fx.git('add', 'o.txt');
    fx.git('commit', '-q', '-m', 'other');
    fx.git('checkout', '-q', 'master');
    write(fx.repo, { 'test.txt': 'changed\n' });
    const lock = join(fx.repo, '.git', 'index.lock');
    writeFileSync(lock, '');
    const refs = fx.git('show-ref', '--head');
    await using c = await connect({ repositories: [fx.path], repoCache: createRepoCache(16, {}, { indexTimeoutMs: 300, ...testClock() }) });
    for (const [name, args] of [
      ['git_stash', { action: 'push' }],
      ['git_checkout', { branch_name: 'other' }],
      ['git_merge', { branch: 'other' }],
    ] as const) {
      const res = await c.client.callTool({ name, arguments: { repo_path: fx.repo, ...args } });
      expect([name, res.isError]).toEqual([name, true]);
      expect(text(res)).toContain(`Unable to create '${lock}': File exists.`);
    }
    expect(fx.git('show-ref', '--head')).toBe(refs);
    expect(readFileSync(join(fx.repo, 'test.txt'), 'utf8')).toBe('changed\n');
    expect(existsSync(join(fx.repo, 'o.txt'))).toBe(false);
    unlinkSync(lock);
    expect(fx.git('status', '--porcelain')).toBe(' M test.txt\n');
  });

  it('an index.lock released during the wait: the call goes through', async () => {
    using fx = gitRepo();
    write(fx.repo, { 'new.txt': 'new\n' });
    const lock = join(fx.repo, '.git', 'index.lock');
    writeFileSync(lock, '');
    const clock = testClock((now) => {
      if (now >= 200 && existsSync(lock)) unlinkSync(lock);
    });
    await using c = await connect({ repositories: [fx.path], repoCache: createRepoCache(16, {}, { indexTimeoutMs: 1500, ...clock }) });
    const res = await c.client.callTool({ name: 'git_add', arguments: { repo_path: fx.repo, files: ['new.txt'] } });
    expect(text(res)).toBe('Files staged successfully');
    expect(clock.elapsed()).toBeGreaterThanOrEqual(200);
    expect(fx.git('ls-files')).toBe('new.txt\ntest.txt\n');
    expect(existsSync(lock)).toBe(false);
  });

  it("a held branch lock: git_commit answers isError naming it; HEAD, the index and the other's lock are left as they were", async () => {
    using fx = gitRepo();
    write(fx.repo, { 'new.txt': 'new\n' });
    fx.git('add', 'new.txt');
    const refLock = join(fx.repo, '.git', 'refs', 'heads', 'master.lock');
    writeFileSync(refLock, '');
    const head = fx.git('rev-parse', 'HEAD');
    const index = readFileSync(join(fx.repo, '.git', 'index'));
    await using c = await connect({
      repositories: [fx.path],
      repoCache: createRepoCache(16, {}, { refTimeoutMs: 500, ...testClock() }),
    });
    const res = await c.client.callTool({ name: 'git_commit', arguments: { repo_path: fx.repo, message: 'x' } });
    expect(res.isError).toBe(true);
    expect(text(res)).toContain(`Unable to create '${refLock}': File exists.`);
    expect(fx.git('rev-parse', 'HEAD')).toBe(head);
    expect(readFileSync(join(fx.repo, '.git', 'index'))).toEqual(index);
    expect(existsSync(join(fx.repo, '.git', 'index.lock'))).toBe(false);
    expect(existsSync(refLock)).toBe(true);
  });

  it('two concurrent git_tag of one name: one creates it, the other is told it exists', async () => {
    using fx = gitRepo();
    const repoCache = createRepoCache();
    await using one = await connect({ repositories: [fx.path], repoCache });
    await using two = await connect({ repositories: [fx.path], repoCache });
    const tags = await Promise.all(
      [one, two].map((s, i) => s.client.callTool({ name: 'git_tag', arguments: { repo_path: fx.repo, name: 'v1', message: `from ${i}` } })),
    );
    expect(tags.map((t) => t.isError ?? false).sort()).toEqual([false, true]);
    expect(text(tags.find((t) => t.isError))).toBe("fatal: tag 'v1' already exists");
    fx.git('fsck', '--full', '--no-progress');
  });
});
