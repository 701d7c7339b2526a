import { chmodSync, mkdirSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { connect, git, gitRepo, hasGit, type RepoFixture, text, write } from './helpers.js';

type Pair = Awaited<ReturnType<typeof connect>>;

/** Our git_status text must be `Repository status:\n` + `git status` (LANG=C) minus its trailing newline. */
async function expectLikeGit(fx: RepoFixture, pair: Pair) {
  const res = await pair.client.callTool({ name: 'git_status', arguments: { repo_path: fx.repo } });
  expect(res.isError, text(res)).toBeFalsy();
  const cli = fx.git('status');
  expect(text(res)).toBe(`Repository status:\n${cli.replace(/\n$/, '')}`);
  return res.structuredContent as Record<string, unknown>;
}

describe('git_status', () => {
  it.skipIf(!hasGit)('clean tree: exactly the reference text', async () => {
    using fx = gitRepo();
    await using pair = await connect({ repositories: [fx.path] });
    const res = await pair.client.callTool({ name: 'git_status', arguments: { repo_path: fx.repo } });
    expect(text(res)).toBe('Repository status:\nOn branch master\nnothing to commit, working tree clean');
    expect(res.structuredContent).toEqual({
      branch: 'master',
      detached: false,
      merging: false,
      staged: [],
      unmerged: [],
      unstaged: [],
      untracked: [],
    });
    await expectLikeGit(fx, pair);
  });

  it.skipIf(!hasGit)('staged, unstaged and untracked sections with git labels, hints and -unormal folders', async () => {
    using fx = gitRepo();
    write(fx.repo, { 'a.txt': 'a\n', 'dir/keep.txt': 'k\n', 'exec.sh': 'echo\n', 'gone.txt': 'g\n', 'link-target.txt': 't\n' });
    fx.git('add', '.');
    fx.git('commit', '-q', '-m', 'more');
    write(fx.repo, {
      'new-staged.txt': 'n\n',
      'a.txt': 'changed\n',
      'test.txt': 'staged change',
      '.gitignore': '*.log\nbuild/\n!keep.log\n',
      'x.log': 'ignored\n',
      'keep.log': 'not ignored\n',
      'build/out.txt': 'ignored\n',
      'untracked-dir/one.txt': '1',
      'untracked-dir/deep/two.txt': '2',
      'dir/new-in-tracked-dir.txt': 'n',
      'dir-a.txt': 'sorts before dir/',
      'caf\u00e9.txt': 'quoted by git',
      'only-ignored/z.log': 'z',
    });
    fx.git('add', 'new-staged.txt', 'test.txt');
    unlinkSync(join(fx.repo, 'gone.txt'));
    chmodSync(join(fx.repo, 'exec.sh'), 0o755);
    unlinkSync(join(fx.repo, 'link-target.txt'));
    symlinkSync('a.txt', join(fx.repo, 'link-target.txt'));
    mkdirSync(join(fx.repo, 'empty-dir'));
    await using pair = await connect({ repositories: [fx.path] });
    const data = await expectLikeGit(fx, pair);
    expect(data.staged).toEqual([
      { path: 'new-staged.txt', status: 'added' },
      { path: 'test.txt', status: 'modified' },
    ]);
    expect(data.unstaged).toEqual([
      { path: 'a.txt', status: 'modified' },
      { path: 'exec.sh', status: 'modified' },
      { path: 'gone.txt', status: 'deleted' },
      { path: 'link-target.txt', status: 'typechange' },
    ]);
    expect(data.untracked).toEqual([
      '.gitignore',
      'caf\u00e9.txt',
      'dir-a.txt',
      'dir/new-in-tracked-dir.txt',
      'keep.log',
      'untracked-dir/',
    ]);
  });

  it.skipIf(!hasGit)('nested .gitignore files, negation, info/exclude and a nested repository', async () => {
    using fx = gitRepo();
    write(fx.repo, {
      '.gitignore': '*.tmp\n',
      'sub/.gitignore': '!important.tmp\nlocal/\n',
      'sub/important.tmp': 'kept',
      'sub/other.tmp': 'ignored',
      'sub/local/x.txt': 'ignored dir',
      'sub/file.txt': 'f',
      'excluded.txt': 'via info/exclude',
    });
    fx.git('add', '.gitignore');
    fx.git('commit', '-q', '-m', 'ignore');
    writeFileSync(join(fx.repo, '.git', 'info', 'exclude'), 'excluded.txt\n');
    mkdirSync(join(fx.repo, 'nested'));
    git(join(fx.repo, 'nested'), ['init', '-q']);
    write(fx.repo, { 'nested/inner.txt': 'i' });
    await using pair = await connect({ repositories: [fx.path] });
    const data = await expectLikeGit(fx, pair);
    expect(data.untracked).toEqual(['nested/', 'sub/']);
    // Track something in sub/ so that its files are listed one by one.
    fx.git('add', 'sub/file.txt');
    const data2 = await expectLikeGit(fx, pair);
    expect(data2.untracked).toEqual(['nested/', 'sub/.gitignore', 'sub/important.tmp']);
  });

  it.skipIf(!hasGit)('nothing added to commit but untracked files present', async () => {
    using fx = gitRepo();
    write(fx.repo, { 'new.txt': 'n' });
    await using pair = await connect({ repositories: [fx.path] });
    await expectLikeGit(fx, pair);
    const res = await pair.client.callTool({ name: 'git_status', arguments: { repo_path: fx.repo } });
    expect(text(res)).toMatch(/nothing added to commit but untracked files present \(use "git add" to track\)$/);
  });

  it.skipIf(!hasGit)('no changes added to commit (only unstaged changes)', async () => {
    using fx = gitRepo();
    write(fx.repo, { 'test.txt': 'TEST' }); // same size, same second: only the racy-clean check catches it
    await using pair = await connect({ repositories: [fx.path] });
    const data = await expectLikeGit(fx, pair);
    expect(data.unstaged).toEqual([{ path: 'test.txt', status: 'modified' }]);
  });

  it.skipIf(!hasGit)('unborn branch: No commits yet, rm --cached hint, and the empty case', async () => {
    using fx = gitRepo({ initial: false });
    await using pair = await connect({ repositories: [fx.path] });
    await expectLikeGit(fx, pair);
    write(fx.repo, { 'a.txt': 'a', 'b.txt': 'b' });
    fx.git('add', 'a.txt');
    await expectLikeGit(fx, pair);
    const res = await pair.client.callTool({ name: 'git_status', arguments: { repo_path: fx.repo } });
    expect(text(res)).toContain(
      'No commits yet\n\nChanges to be committed:\n  (use "git rm --cached <file>..." to unstage)\n\tnew file:   a.txt',
    );
  });

  it.skipIf(!hasGit)('detached HEAD at an abbreviated commit, at a tag, and detached from after a commit', async () => {
    using fx = gitRepo();
    write(fx.repo, { 'two.txt': '2' });
    fx.git('add', '.');
    fx.git('commit', '-q', '-m', 'two');
    const first = fx.git('rev-parse', 'HEAD~1').trim();
    fx.git('checkout', '-q', first);
    await using pair = await connect({ repositories: [fx.path] });
    const data = await expectLikeGit(fx, pair);
    expect(data).toMatchObject({ branch: null, detached: true });
    fx.git('tag', '-a', '-m', 'v', 'v1.0', 'master');
    fx.git('checkout', '-q', 'v1.0');
    await expectLikeGit(fx, pair);
    write(fx.repo, { 'three.txt': '3' });
    fx.git('add', '.');
    fx.git('commit', '-q', '-m', 'three');
    await expectLikeGit(fx, pair);
    const res = await pair.client.callTool({ name: 'git_status', arguments: { repo_path: fx.repo } });
    expect(text(res)).toMatch(/^Repository status:\nHEAD detached from v1\.0\n/);
  });

  it.skipIf(!hasGit)('upstream: up to date, ahead, behind, diverged and gone', async () => {
    using fx = gitRepo();
    fx.git('config', 'remote.origin.url', 'https://example.invalid/repo.git');
    fx.git('config', 'remote.origin.fetch', '+refs/heads/*:refs/remotes/origin/*');
    fx.git('config', 'branch.master.remote', 'origin');
    fx.git('config', 'branch.master.merge', 'refs/heads/master');
    fx.git('update-ref', 'refs/remotes/origin/master', 'HEAD');
    await using pair = await connect({ repositories: [fx.path] });
    const upToDate = await expectLikeGit(fx, pair);
    expect(upToDate).toMatchObject({ upstream: 'origin/master', ahead: 0, behind: 0 });
    for (const n of [1, 2]) {
      write(fx.repo, { [`ahead${n}.txt`]: String(n) });
      fx.git('add', '.');
      fx.git('commit', '-q', '-m', `ahead ${n}`);
    }
    expect(await expectLikeGit(fx, pair)).toMatchObject({ ahead: 2, behind: 0 });
    fx.git('update-ref', 'refs/remotes/origin/master', 'HEAD');
    fx.git('reset', '-q', '--hard', 'HEAD~1');
    expect(await expectLikeGit(fx, pair)).toMatchObject({ ahead: 0, behind: 1 });
    write(fx.repo, { 'mine.txt': 'm' });
    fx.git('add', '.');
    fx.git('commit', '-q', '-m', 'mine');
    expect(await expectLikeGit(fx, pair)).toMatchObject({ ahead: 1, behind: 1 });
    fx.git('update-ref', '-d', 'refs/remotes/origin/master');
    expect(await expectLikeGit(fx, pair)).toMatchObject({ upstream: 'origin/master', upstream_gone: true });
  });

  it.skipIf(!hasGit)('merge in progress with conflicts, then all conflicts fixed', async () => {
    using fx = gitRepo();
    fx.git('checkout', '-q', '-b', 'other');
    write(fx.repo, { 'test.txt': 'other side\n', 'both.txt': 'theirs\n' });
    fx.git('add', '.');
    fx.git('commit', '-q', '-m', 'other');
    fx.git('checkout', '-q', 'master');
    write(fx.repo, { 'test.txt': 'master side\n', 'both.txt': 'ours\n' });
    fx.git('add', '.');
    fx.git('commit', '-q', '-m', 'master');
    try {
      fx.git('merge', '-q', 'other');
    } catch {
      // conflicts expected
    }
    await using pair = await connect({ repositories: [fx.path] });
    const data = await expectLikeGit(fx, pair);
    expect(data.merging).toBe(true);
    expect(data.unmerged).toEqual([
      { path: 'both.txt', status: 'both added' },
      { path: 'test.txt', status: 'both modified' },
    ]);
    write(fx.repo, { 'test.txt': 'resolved\n', 'both.txt': 'resolved\n' });
    fx.git('add', 'test.txt', 'both.txt');
    await expectLikeGit(fx, pair);
  });

  it.skipIf(!hasGit)('a deleted folder of tracked files and a file replacing a folder', async () => {
    using fx = gitRepo();
    write(fx.repo, { 'd/a.txt': 'a', 'd/b.txt': 'b', 'e/x.txt': 'x' });
    fx.git('add', '.');
    fx.git('commit', '-q', '-m', 'dirs');
    rmSync(join(fx.repo, 'd'), { recursive: true });
    rmSync(join(fx.repo, 'e'), { recursive: true });
    write(fx.repo, { e: 'now a file' });
    await using pair = await connect({ repositories: [fx.path] });
    await expectLikeGit(fx, pair);
  });

  it('refuses a repository outside the allowed roots', async () => {
    using fx = gitRepo();
    using other = gitRepo();
    await using pair = await connect({ repositories: [fx.path] });
    const res = await pair.client.callTool({ name: 'git_status', arguments: { repo_path: other.repo } });
    expect(res.isError).toBe(true);
  });
});
