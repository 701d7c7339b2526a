/**
 * The warm-up's read-ahead (src/engine/warm.ts) on real repositories: HEAD's commit is shown ahead only
 * within its bounds (WARM_SHOW_FILES_MAX files, WARM_SHOW_BYTES_MAX bytes, sizes read from the objects'
 * headers), and what it shows is what git_show reads (the engine's data).
 */
import { describe, expect, it } from 'vitest';
import type { GitContext } from '../src/engine/context.js';
import { createPatchCache } from '../src/engine/diff/patchCache.js';
import { DEFAULT_OBJECT_LIMITS } from '../src/engine/git/objectLimits.js';
import { createRepoCache } from '../src/engine/repo.js';
import { openRepository } from '../src/engine/repository.js';
import { WARM_SHOW_BYTES_MAX, WARM_SHOW_FILES_MAX, warmRepositories } from '../src/engine/warm.js';
import { gitEnv, gitRepo, hasGit, type RepoFixture, write } from './helpers.js';

const ctxFor = (fx: RepoFixture) =>
  ({
    roots: { list: async () => [fx.repo] },
    repoCache: createRepoCache(),
    patchCache: createPatchCache(),
    objectLimits: DEFAULT_OBJECT_LIMITS,
    env: gitEnv(),
    home: '/nonexistent-home',
  }) as unknown as GitContext;

async function warmedTools(fx: RepoFixture): Promise<Record<string, Record<string, unknown> | undefined>> {
  const skipped: unknown[] = [];
  const warmed = await warmRepositories(
    ctxFor(fx),
    () => false,
    (_path, error) => skipped.push(error),
  );
  expect(skipped).toEqual([]);
  expect(warmed).toHaveLength(1);
  return warmed[0]!.results;
}

function commitAll(fx: RepoFixture, files: Record<string, string>): void {
  write(fx.repo, files);
  fx.git('add', '-A');
  fx.git('commit', '-q', '-m', 'change');
}

describe('warm-up read-ahead', () => {
  it.skipIf(!hasGit)('shows a small HEAD commit ahead, as git_show answers it (packed or loose)', async () => {
    using fx = gitRepo();
    commitAll(fx, { 'a.txt': 'one\n', 'dir/b.txt': 'two\n' });
    commitAll(fx, { 'a.txt': 'ONE\n', 'dir/c.txt': 'three\n' });
    for (const packed of [false, true]) {
      if (packed) fx.git('repack', '-a', '-d', '-q');
      const results = await warmedTools(fx);
      expect(Object.keys(results).sort()).toEqual(['git_branch', 'git_diff_unstaged', 'git_log', 'git_show', 'git_status']);
      const direct = await (await openRepository(ctxFor(fx), fx.repo)).show({ revision: 'HEAD' });
      expect(results.git_show).toEqual(direct);
    }
  });

  it.skipIf(!hasGit)('does not show HEAD ahead when its commit changes too many files or too many bytes', async () => {
    using fx = gitRepo();
    const many: Record<string, string> = {};
    for (let i = 0; i <= WARM_SHOW_FILES_MAX; i++) many[`f/${i}.txt`] = `file ${i}\n`;
    commitAll(fx, many);
    let results = await warmedTools(fx);
    expect(results.git_status).toBeDefined();
    expect(results.git_show).toBeUndefined();
    // One file, but bigger than the bound (compressible: its loose object is small on disk, its size is not).
    commitAll(fx, { 'big.txt': 'x'.repeat(WARM_SHOW_BYTES_MAX + 1) });
    results = await warmedTools(fx);
    expect(results.git_show).toBeUndefined();
    fx.git('repack', '-a', '-d', '-q');
    results = await warmedTools(fx);
    expect(results.git_show).toBeUndefined();
    // A small commit on top: shown again.
    commitAll(fx, { 'small.txt': 'small\n' });
    results = await warmedTools(fx);
    expect((results.git_show as { commit: { oid: string } }).commit.oid).toBe(fx.git('rev-parse', 'HEAD').trim());
  });
});
