import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { connect, gitRepo, hasGit, type RepoFixture, text, write } from './helpers.js';

function snapshot(fx: RepoFixture) {
  return {
    refs: fx.git('for-each-ref'),
    head: fx.git('rev-parse', 'HEAD').trim(),
    index: fx.git('ls-files', '-s'),
    status: fx.git('status', '--porcelain=v1', '-uall'),
    files: fx
      .git('ls-files')
      .split('\n')
      .filter(Boolean)
      .map((f) => {
        try {
          return `${f}=${readFileSync(join(fx.repo, f), 'utf8')}`;
        } catch {
          return `${f}=<missing>`;
        }
      }),
  };
}

function commitFiles(fx: RepoFixture, branch: string, files: Record<string, string>, message: string) {
  fx.git('checkout', '-q', branch);
  write(fx.repo, files);
  fx.git('add', '-A');
  fx.git('commit', '-q', '-m', message);
}

describe('git_merge', () => {
  it.skipIf(!hasGit)('fast-forwards and updates the work tree', async () => {
    using fx = gitRepo();
    fx.git('branch', 'feat');
    commitFiles(fx, 'feat', { 'f.txt': 'feature', 'test.txt': 'changed' }, 'feature work');
    fx.git('checkout', '-q', 'master');
    await using pair = await connect({ repositories: [fx.path] });
    const res = await pair.client.callTool({ name: 'git_merge', arguments: { repo_path: fx.repo, branch: 'feat' } });
    expect(res.isError, text(res)).toBeFalsy();
    expect((res.structuredContent as { result: string }).result).toBe('fast-forward');
    expect(fx.git('rev-parse', 'master').trim()).toBe(fx.git('rev-parse', 'feat').trim());
    expect(fx.git('status', '--porcelain')).toBe('');
    expect(readFileSync(join(fx.repo, 'test.txt'), 'utf8')).toBe('changed');
    const again = await pair.client.callTool({ name: 'git_merge', arguments: { repo_path: fx.repo, branch: 'feat' } });
    expect(text(again)).toBe('Already up to date.');
  });

  it.skipIf(!hasGit)("makes a clean three-way merge commit with git's default message", async () => {
    using fx = gitRepo();
    fx.git('branch', 'feat');
    commitFiles(fx, 'feat', { 'f.txt': 'feature' }, 'feature work');
    commitFiles(fx, 'master', { 'm.txt': 'main' }, 'main work');
    await using pair = await connect({ repositories: [fx.path] });
    const res = await pair.client.callTool({ name: 'git_merge', arguments: { repo_path: fx.repo, branch: 'feat' } });
    expect(res.isError, text(res)).toBeFalsy();
    expect((res.structuredContent as { result: string }).result).toBe('merge');
    expect(fx.git('log', '-1', '--format=%s%n%P%n%an <%ae>')).toBe(
      `Merge branch 'feat'\n${fx.git('rev-parse', 'HEAD^1').trim()} ${fx.git('rev-parse', 'feat').trim()}\nTest User <test@example.com>\n`,
    );
    expect(fx.git('cat-file', 'commit', 'HEAD').endsWith("\n\nMerge branch 'feat'\n")).toBe(true);
    expect(fx.git('status', '--porcelain')).toBe('');
    expect(readFileSync(join(fx.repo, 'f.txt'), 'utf8')).toBe('feature');
    expect(fx.git('ls-files')).toBe('f.txt\nm.txt\ntest.txt\n');
    fx.git('fsck', '--no-dangling');
  });

  it.skipIf(!hasGit)('refuses a conflicting merge listing the files, changing nothing', async () => {
    using fx = gitRepo();
    fx.git('branch', 'feat');
    commitFiles(fx, 'feat', { 'test.txt': 'theirs', 'ok.txt': 'x' }, 'feature edit');
    commitFiles(fx, 'master', { 'test.txt': 'ours' }, 'main edit');
    const before = snapshot(fx);
    await using pair = await connect({ repositories: [fx.path] });
    const res = await pair.client.callTool({ name: 'git_merge', arguments: { repo_path: fx.repo, branch: 'feat' } });
    expect(res.isError).toBe(true);
    expect(text(res)).toContain('would conflict in: test.txt');
    expect(snapshot(fx)).toEqual(before);
  });

  it.skipIf(!hasGit)('refuses when tracked files have uncommitted changes (even unrelated ones)', async () => {
    using fx = gitRepo();
    fx.git('branch', 'feat');
    commitFiles(fx, 'feat', { 'f.txt': 'feature' }, 'feature work');
    commitFiles(fx, 'master', { 'm.txt': 'main' }, 'main work');
    write(fx.repo, { 'test.txt': 'dirty' });
    const before = snapshot(fx);
    await using pair = await connect({ repositories: [fx.path] });
    const res = await pair.client.callTool({ name: 'git_merge', arguments: { repo_path: fx.repo, branch: 'feat' } });
    expect(res.isError).toBe(true);
    expect(text(res)).toMatch(/Uncommitted changes to tracked files \(test\.txt\)/);
    expect(snapshot(fx)).toEqual(before);
  });

  it.skipIf(!hasGit)('refuses when an untracked file would be overwritten', async () => {
    using fx = gitRepo();
    fx.git('branch', 'feat');
    commitFiles(fx, 'feat', { 'f.txt': 'feature' }, 'feature work');
    fx.git('checkout', '-q', 'master');
    write(fx.repo, { 'f.txt': 'mine, untracked' });
    const before = snapshot(fx);
    await using pair = await connect({ repositories: [fx.path] });
    const res = await pair.client.callTool({ name: 'git_merge', arguments: { repo_path: fx.repo, branch: 'feat' } });
    expect(res.isError).toBe(true);
    expect(text(res)).toContain('untracked working tree files would be overwritten by merge:\n\tf.txt');
    expect(snapshot(fx)).toEqual(before);
    expect(readFileSync(join(fx.repo, 'f.txt'), 'utf8')).toBe('mine, untracked');
  });

  it('refuses unknown and dash-leading names', async () => {
    using fx = gitRepo();
    await using pair = await connect({ repositories: [fx.path] });
    const a = await pair.client.callTool({ name: 'git_merge', arguments: { repo_path: fx.repo, branch: 'nope' } });
    expect(text(a)).toBe('merge: nope - not something we can merge');
    const b = await pair.client.callTool({ name: 'git_merge', arguments: { repo_path: fx.repo, branch: '--abort' } });
    expect(b.isError).toBe(true);
    expect(text(b)).toBe("Ref 'Invalid branch: '--abort' - cannot start with '-'' did not resolve to an object");
  });
});
