import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { connect, gitRepo, hasGit, type RepoFixture, text, write } from './helpers.js';

/** HEAD, index and work tree as the git CLI sees them. */
function snapshot(fx: RepoFixture) {
  return {
    head: fx.git('rev-parse', 'HEAD').trim(),
    symbolic: fx.git('symbolic-ref', '-q', 'HEAD').trim(),
    index: fx.git('ls-files', '-s'),
    status: fx.git('status', '--porcelain=v1', '-uall'),
    diff: fx.git('diff'),
  };
}

function branchWithChange(fx: RepoFixture, branch: string, files: Record<string, string>): string {
  fx.git('checkout', '-q', '-b', branch);
  write(fx.repo, files);
  fx.git('add', '-A');
  fx.git('commit', '-q', '-m', `on ${branch}`);
  const sha = fx.git('rev-parse', 'HEAD').trim();
  fx.git('checkout', '-q', 'master');
  return sha;
}

describe('git_checkout', () => {
  it.skipIf(!hasGit)('switches branches and back, updating the work tree (reference tests 1 and 35)', async () => {
    using fx = gitRepo();
    branchWithChange(fx, 'test-branch', { 'test.txt': 'changed', 'new/file.txt': 'new' });
    await using pair = await connect({ repositories: [fx.path] });
    const res = await pair.client.callTool({ name: 'git_checkout', arguments: { repo_path: fx.repo, branch_name: 'test-branch' } });
    expect(text(res)).toBe("Switched to branch 'test-branch'");
    expect(fx.git('symbolic-ref', 'HEAD').trim()).toBe('refs/heads/test-branch');
    expect(readFileSync(join(fx.repo, 'test.txt'), 'utf8')).toBe('changed');
    expect(fx.git('status', '--porcelain')).toBe('');
    const back = await pair.client.callTool({ name: 'git_checkout', arguments: { repo_path: fx.repo, branch_name: 'master' } });
    expect(text(back)).toBe("Switched to branch 'master'");
    expect(fx.git('symbolic-ref', 'HEAD').trim()).toBe('refs/heads/master');
    expect(existsSync(join(fx.repo, 'new/file.txt'))).toBe(false);
    expect(fx.git('status', '--porcelain')).toBe('');
  });

  it.skipIf(!hasGit)('detaches HEAD at a commit, and still says "Switched to branch" as the reference does', async () => {
    using fx = gitRepo();
    const sha = branchWithChange(fx, 'b', { 'b.txt': 'b' });
    await using pair = await connect({ repositories: [fx.path] });
    const res = await pair.client.callTool({ name: 'git_checkout', arguments: { repo_path: fx.repo, branch_name: sha.slice(0, 10) } });
    expect(text(res)).toBe(`Switched to branch '${sha.slice(0, 10)}'`);
    expect(fx.git('rev-parse', 'HEAD').trim()).toBe(sha);
    expect(() => fx.git('symbolic-ref', '-q', 'HEAD')).toThrow();
    expect(fx.git('status', '--porcelain')).toBe('');
  });

  it('refuses an unknown name with the reference BadName text', async () => {
    using fx = gitRepo();
    await using pair = await connect({ repositories: [fx.path] });
    const res = await pair.client.callTool({ name: 'git_checkout', arguments: { repo_path: fx.repo, branch_name: 'nonexistent-branch' } });
    expect(res.isError).toBe(true);
    expect(text(res)).toBe("Ref 'nonexistent-branch' did not resolve to an object");
  });

  it.skipIf(!hasGit)('refuses when local changes would be overwritten, changing nothing', async () => {
    using fx = gitRepo();
    branchWithChange(fx, 'other', { 'test.txt': 'other version' });
    write(fx.repo, { 'test.txt': 'my local edit' });
    const before = snapshot(fx);
    await using pair = await connect({ repositories: [fx.path] });
    const res = await pair.client.callTool({ name: 'git_checkout', arguments: { repo_path: fx.repo, branch_name: 'other' } });
    expect(res.isError).toBe(true);
    expect(text(res)).toContain('Your local changes to the following files would be overwritten by checkout:\n\ttest.txt');
    expect(snapshot(fx)).toEqual(before);
    expect(readFileSync(join(fx.repo, 'test.txt'), 'utf8')).toBe('my local edit');
  });

  it.skipIf(!hasGit)('refuses when an untracked file would be overwritten', async () => {
    using fx = gitRepo();
    branchWithChange(fx, 'other', { 'added.txt': 'from branch' });
    write(fx.repo, { 'added.txt': 'untracked local' });
    const before = snapshot(fx);
    await using pair = await connect({ repositories: [fx.path] });
    const res = await pair.client.callTool({ name: 'git_checkout', arguments: { repo_path: fx.repo, branch_name: 'other' } });
    expect(res.isError).toBe(true);
    expect(text(res)).toContain('untracked working tree files would be overwritten by checkout:\n\tadded.txt');
    expect(snapshot(fx)).toEqual(before);
  });

  it.skipIf(!hasGit)('carries unrelated unstaged edits across the switch, as git does', async () => {
    using fx = gitRepo();
    write(fx.repo, { 'keep.txt': 'k' });
    fx.git('add', 'keep.txt');
    fx.git('commit', '-q', '-m', 'keep');
    branchWithChange(fx, 'other', { 'b.txt': 'b' });
    write(fx.repo, { 'keep.txt': 'edited' });
    await using pair = await connect({ repositories: [fx.path] });
    const res = await pair.client.callTool({ name: 'git_checkout', arguments: { repo_path: fx.repo, branch_name: 'other' } });
    expect(res.isError, text(res)).toBeFalsy();
    expect(readFileSync(join(fx.repo, 'keep.txt'), 'utf8')).toBe('edited');
    expect(fx.git('status', '--porcelain')).toBe(' M keep.txt\n');
  });

  it.skipIf(!hasGit)('refuses (changing nothing) when staged changes would have to be carried', async () => {
    using fx = gitRepo();
    branchWithChange(fx, 'other', { 'b.txt': 'b' });
    write(fx.repo, { 'staged-new.txt': 'new' });
    fx.git('add', 'staged-new.txt');
    const before = snapshot(fx);
    await using pair = await connect({ repositories: [fx.path] });
    const res = await pair.client.callTool({ name: 'git_checkout', arguments: { repo_path: fx.repo, branch_name: 'other' } });
    expect(res.isError).toBe(true);
    expect(text(res)).toMatch(/Staged changes in staged-new\.txt/);
    expect(snapshot(fx)).toEqual(before);
  });
});

describe('git_create_branch', () => {
  it.skipIf(!hasGit)('creates from the current branch and from a base (reference tests 22, 23)', async () => {
    using fx = gitRepo();
    const base = branchWithChange(fx, 'base-branch', { 'b.txt': 'b' });
    await using pair = await connect({ repositories: [fx.path] });
    const a = await pair.client.callTool({
      name: 'git_create_branch',
      arguments: { repo_path: fx.repo, branch_name: 'new-feature-branch' },
    });
    expect(text(a)).toBe("Created branch 'new-feature-branch' from 'master'");
    expect(fx.git('rev-parse', 'new-feature-branch').trim()).toBe(fx.git('rev-parse', 'master').trim());
    const b = await pair.client.callTool({
      name: 'git_create_branch',
      arguments: { repo_path: fx.repo, branch_name: 'derived-branch', base_branch: 'base-branch' },
    });
    expect(text(b)).toBe("Created branch 'derived-branch' from 'base-branch'");
    expect(fx.git('rev-parse', 'derived-branch').trim()).toBe(base);
    expect(fx.git('symbolic-ref', 'HEAD').trim()).toBe('refs/heads/master');
    // git itself sees a normal branch
    expect(fx.git('branch')).toContain('  derived-branch\n');
  });

  it.skipIf(!hasGit)('accepts a tag as base; unknown base gives the GitPython IndexError text', async () => {
    using fx = gitRepo();
    fx.git('tag', '-a', 'v1', '-m', 'release');
    await using pair = await connect({ repositories: [fx.path] });
    const a = await pair.client.callTool({
      name: 'git_create_branch',
      arguments: { repo_path: fx.repo, branch_name: 'from-tag', base_branch: 'v1' },
    });
    expect(text(a)).toBe("Created branch 'from-tag' from 'v1'");
    expect(fx.git('rev-parse', 'from-tag').trim()).toBe(fx.git('rev-parse', 'master').trim());
    const b = await pair.client.callTool({
      name: 'git_create_branch',
      arguments: { repo_path: fx.repo, branch_name: 'x', base_branch: 'nope' },
    });
    expect(b.isError).toBe(true);
    expect(text(b)).toBe("No item found with id 'nope'");
  });

  it.skipIf(!hasGit)('existing name: success at the same commit, error elsewhere', async () => {
    using fx = gitRepo();
    fx.git('branch', 'feat');
    const other = branchWithChange(fx, 'other', { 'o.txt': 'o' });
    await using pair = await connect({ repositories: [fx.path] });
    const same = await pair.client.callTool({ name: 'git_create_branch', arguments: { repo_path: fx.repo, branch_name: 'feat' } });
    expect(same.isError).toBeFalsy();
    expect(text(same)).toBe("Created branch 'feat' from 'master'");
    const diff = await pair.client.callTool({ name: 'git_create_branch', arguments: { repo_path: fx.repo, branch_name: 'other' } });
    expect(diff.isError).toBe(true);
    expect(text(diff)).toMatch(/^Reference at 'refs\/heads\/other' does already exist/);
    expect(fx.git('rev-parse', 'other').trim()).toBe(other);
  });

  it.skipIf(!hasGit)('refuses names git check-ref-format --branch refuses', async () => {
    using fx = gitRepo();
    fx.git('branch', 'dir');
    await using pair = await connect({ repositories: [fx.path] });
    for (const name of ['a..b', 'a b', 'x.lock', 'end/', 'a~1', 'HEAD', '.hidden', 'a@{b', 'dir/sub', 'q?']) {
      const before = fx.git('for-each-ref');
      const res = await pair.client.callTool({ name: 'git_create_branch', arguments: { repo_path: fx.repo, branch_name: name } });
      expect(res.isError, name).toBe(true);
      expect(fx.git('for-each-ref'), name).toBe(before);
    }
    for (const name of ['feature/x', 'fix-1.2', 'Ünï']) {
      const res = await pair.client.callTool({ name: 'git_create_branch', arguments: { repo_path: fx.repo, branch_name: name } });
      expect(res.isError, `${name}: ${text(res)}`).toBeFalsy();
      expect(fx.git('rev-parse', '--verify', `refs/heads/${name}`).trim()).toBe(fx.git('rev-parse', 'HEAD').trim());
    }
  });
});
