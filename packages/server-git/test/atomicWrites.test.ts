/**
 * Every write is all-or-nothing: a refused or failed write leaves refs, index, work tree and the
 * object graph as they were (`git fsck` after each refusal).
 */
import { readFileSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { connect, gitRepo, hasGit, type RepoFixture, text, write } from './helpers.js';

function snapshot(fx: RepoFixture) {
  return {
    refs: fx.git('for-each-ref'),
    head: fx.git('symbolic-ref', '-q', 'HEAD').trim(),
    index: fx.git('ls-files', '-s'),
    status: fx.git('status', '--porcelain=v1', '-uall'),
    stash: fx.git('stash', 'list'),
    files: fx
      .git('ls-files', '-co', '--exclude-standard')
      .split('\n')
      .filter(Boolean)
      .map((f) => {
        try {
          return `${f}=${readFileSync(join(fx.repo, f), 'utf8')}`;
        } catch {
          return `${f}=<not a file>`;
        }
      }),
  };
}

/** No broken links or bad objects anywhere (dangling objects are fine). */
function fsck(fx: RepoFixture): void {
  expect(() => fx.git('fsck', '--no-dangling', '--strict')).not.toThrow();
}

describe.skipIf(!hasGit)('all-or-nothing writes', () => {
  it('git_merge: a symlink on one side and a folder on the other is a conflict, as git says; nothing written', async () => {
    using fx = gitRepo();
    write(fx.repo, { 'sub/a.txt': 'a' });
    fx.git('add', '-A');
    fx.git('commit', '-q', '-m', 'sub is a folder');
    fx.git('branch', 'dirb');
    rmSync(join(fx.repo, 'sub'), { recursive: true });
    symlinkSync('test.txt', join(fx.repo, 'sub'));
    write(fx.repo, { 'm.txt': 'm' });
    fx.git('add', '-A');
    fx.git('commit', '-q', '-m', 'sub is a symlink');
    fx.git('checkout', '-q', 'dirb');
    write(fx.repo, { 'sub/new.txt': 'new' });
    fx.git('add', '-A');
    fx.git('commit', '-q', '-m', 'new file in sub/');
    fx.git('checkout', '-q', 'master');
    const before = snapshot(fx);
    await using pair = await connect({ repositories: [fx.path] });
    const res = await pair.client.callTool({ name: 'git_merge', arguments: { repo_path: fx.repo, branch: 'dirb' } });
    expect(res.isError).toBe(true);
    expect(text(res)).toContain('would conflict in: sub (CONFLICT (file/directory))');
    expect(text(res)).toContain('Nothing was changed');
    expect(snapshot(fx)).toEqual(before);
    fsck(fx);
  });

  it('git_stash push: when the files cannot be put back (a folder where a symlink was), no entry is left', async () => {
    using fx = gitRepo();
    symlinkSync('test.txt', join(fx.repo, 'sub'));
    fx.git('add', '-A');
    fx.git('commit', '-q', '-m', 'link');
    rmSync(join(fx.repo, 'sub'));
    write(fx.repo, { 'sub/x.txt': 'x', 'test.txt': 'edited' });
    const before = snapshot(fx);
    await using pair = await connect({ repositories: [fx.path] });
    const res = await pair.client.callTool({ name: 'git_stash', arguments: { repo_path: fx.repo, action: 'push' } });
    expect(res.isError).toBe(true);
    expect(text(res)).toMatch(/^Cannot stash: .*sub \(a folder holding untracked files is in the way\).*Nothing was saved or changed\.$/);
    expect(snapshot(fx)).toEqual(before);
    expect(readFileSync(join(fx.repo, 'test.txt'), 'utf8')).toBe('edited');
    fsck(fx);
  });

  it('git_stash pop: refused when a folder is where the stash writes a file; the entry is kept', async () => {
    using fx = gitRepo();
    await using pair = await connect({ repositories: [fx.path] });
    write(fx.repo, { 'test.txt': 'stashed' });
    const push = await pair.client.callTool({ name: 'git_stash', arguments: { repo_path: fx.repo, action: 'push' } });
    expect(push.isError, text(push)).toBeFalsy();
    rmSync(join(fx.repo, 'test.txt'));
    write(fx.repo, { 'test.txt/inner.txt': 'in the way' });
    fx.git('rm', '-q', '--cached', 'test.txt');
    fx.git('commit', '-q', '-m', 'gone');
    const before = snapshot(fx);
    const res = await pair.client.callTool({ name: 'git_stash', arguments: { repo_path: fx.repo, action: 'pop' } });
    expect(res.isError).toBe(true);
    expect(snapshot(fx)).toEqual(before);
    expect(fx.git('stash', 'list')).toMatch(/^stash@\{0\}/);
    fsck(fx);
  });

  it('git_checkout: a folder of untracked files where the branch has a file is refused before anything is written', async () => {
    using fx = gitRepo();
    fx.git('checkout', '-q', '-b', 'other');
    write(fx.repo, { sub: 'a file on other', 'o.txt': 'o' });
    fx.git('add', '-A');
    fx.git('commit', '-q', '-m', 'other');
    fx.git('checkout', '-q', 'master');
    write(fx.repo, { 'sub/untracked.txt': 'mine' });
    const before = snapshot(fx);
    await using pair = await connect({ repositories: [fx.path] });
    const res = await pair.client.callTool({ name: 'git_checkout', arguments: { repo_path: fx.repo, branch_name: 'other' } });
    expect(res.isError).toBe(true);
    expect(text(res)).toContain('sub (a folder holding untracked files is in the way)');
    expect(snapshot(fx)).toEqual(before);
    fsck(fx);
  });

  it('an over-long branch name is refused up front with the reason, not as an unexpected failure', async () => {
    using fx = gitRepo();
    const before = snapshot(fx);
    await using pair = await connect({ repositories: [fx.path] });
    const name = 'b'.repeat(5000);
    const create = await pair.client.callTool({ name: 'git_create_branch', arguments: { repo_path: fx.repo, branch_name: name } });
    expect(create.isError).toBe(true);
    expect(text(create)).toMatch(/is not a valid branch name: it is 5000 bytes long/);
    for (const [tool, args] of [
      ['git_checkout', { branch_name: name }],
      ['git_merge', { branch: name }],
      ['git_tag', { name }],
    ] as const) {
      const res = await pair.client.callTool({ name: tool, arguments: { repo_path: fx.repo, ...args } });
      expect(res.isError, tool).toBe(true);
      expect(text(res), tool).not.toContain('failed unexpectedly');
    }
    expect(snapshot(fx)).toEqual(before);
    fsck(fx);
  });
});
