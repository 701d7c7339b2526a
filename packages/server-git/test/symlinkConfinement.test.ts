/**
 * Issue 22, item 1: a tracked folder replaced by a symlink to a folder outside every allowed root. git
 * never follows a symlink inside the work tree (`has_symlink_leading_path`): `sub/f.txt` behind a
 * symlinked `sub` is absent, and `sub` itself is an untracked mode-120000 entry holding the link text.
 * Every tool must see the tree that way: no outside content in a status, diff, index, stash or commit,
 * and no write (or removal) through the link.
 */
import { cpSync, existsSync, lstatSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { connect, git, gitRepo, hasGit, type RepoFixture, type TempDir, tempDir, text, write } from './helpers.js';

/** Without a git binary these compare-with-git tests are skipped locally, but must fail on CI. */
const noGit = !hasGit && !process.env.CI;
const SECRET = 'SECRET outside content\n';
const strip = (s: string) => (s.endsWith('\n') ? s.slice(0, -1) : s);

interface Linked extends Disposable {
  fx: RepoFixture;
  outside: TempDir;
  /** The outside folder's files and their contents, to compare before and after a call. */
  snapshot(): Record<string, string>;
}

/**
 * The reproduction: `sub/f.txt` (and `sub/a.txt`) committed, then `rm -rf sub; ln -s <outside> sub`
 * where the outside folder (not under the allowed root) holds its own `f.txt` and `a.txt`.
 */
function linkedRepo(): Linked {
  const fx = gitRepo();
  const outside = tempDir('mcpkit-outside-');
  write(fx.repo, { 'sub/f.txt': 'inside\n', 'sub/a.txt': 'inside a\n' });
  fx.git('add', '.');
  fx.git('commit', '-q', '-m', 'sub');
  write(outside.path, { 'f.txt': SECRET, 'a.txt': SECRET, 'more.txt': SECRET });
  rmSync(join(fx.repo, 'sub'), { recursive: true });
  symlinkSync(outside.path, join(fx.repo, 'sub'));
  const snapshot = () => Object.fromEntries(readdirSync(outside.path).map((n) => [n, readFileSync(join(outside.path, n), 'utf8')]));
  return {
    fx,
    outside,
    snapshot,
    [Symbol.dispose]: () => {
      fx[Symbol.dispose]();
      outside[Symbol.dispose]();
    },
  };
}

async function call(pair: Awaited<ReturnType<typeof connect>>, name: string, args: Record<string, unknown>) {
  return pair.client.callTool({ name, arguments: args });
}

const OUTSIDE_FILES = { 'a.txt': SECRET, 'f.txt': SECRET, 'more.txt': SECRET };

describe('a tracked folder replaced by a symlink that leads outside', () => {
  it.skipIf(noGit)('git_status: sub/f.txt deleted and sub untracked, exactly as git status says', async () => {
    using l = linkedRepo();
    await using pair = await connect({ repositories: [l.fx.path] });
    const res = await call(pair, 'git_status', { repo_path: l.fx.repo });
    expect(res.isError, text(res)).toBeFalsy();
    expect(text(res)).toBe(`Repository status:\n${strip(l.fx.git('status'))}`);
    expect(res.structuredContent).toMatchObject({
      unstaged: [
        { path: 'sub/a.txt', status: 'deleted' },
        { path: 'sub/f.txt', status: 'deleted' },
      ],
      untracked: ['sub'],
    });
  });

  it.skipIf(noGit)('git_diff_unstaged and git_diff HEAD show the deletions, never the outside content', async () => {
    using l = linkedRepo();
    await using pair = await connect({ repositories: [l.fx.path] });
    const unstaged = await call(pair, 'git_diff_unstaged', { repo_path: l.fx.repo });
    expect(text(unstaged)).not.toContain('SECRET');
    expect(text(unstaged)).toBe(`Unstaged changes:\n${strip(l.fx.git('diff'))}`);
    const head = await call(pair, 'git_diff', { repo_path: l.fx.repo, target: 'HEAD' });
    expect(text(head)).not.toContain('SECRET');
    expect(text(head)).toBe(`Diff with HEAD:\n${strip(l.fx.git('diff', 'HEAD'))}`);
    const staged = await call(pair, 'git_diff_staged', { repo_path: l.fx.repo });
    expect(text(staged)).toBe('Staged changes:\n');
  });

  it.skipIf(noGit)('git_add ["."] stages the symlink as git add . does, never the outside content; the commit holds none', async () => {
    using l = linkedRepo();
    using copy = tempDir();
    cpSync(l.fx.repo, join(copy.path, 'repo'), { recursive: true, verbatimSymlinks: true });
    git(join(copy.path, 'repo'), ['add', '.']);
    const expected = git(join(copy.path, 'repo'), ['ls-files', '-s']);
    await using pair = await connect({ repositories: [l.fx.path] });
    const res = await call(pair, 'git_add', { repo_path: l.fx.repo, files: ['.'] });
    expect(res.isError, text(res)).toBeFalsy();
    const staged = l.fx.git('ls-files', '-s');
    expect(staged).toBe(expected);
    expect(staged).toMatch(/^120000 [0-9a-f]{40} 0\tsub$/m);
    const secretOid = git(l.outside.path, ['hash-object', 'f.txt']).trim();
    expect(staged).not.toContain(secretOid);
    const commit = await call(pair, 'git_commit', { repo_path: l.fx.repo, message: 'after add' });
    expect(commit.isError, text(commit)).toBeFalsy();
    expect(l.fx.git('ls-tree', '-r', 'HEAD')).not.toContain(secretOid);
    expect(l.fx.git('cat-file', '-p', 'HEAD:sub')).toBe(l.outside.path);
  });

  it.skipIf(noGit)('git_stash push saves the deletions and neither reads nor writes the outside folder', async () => {
    using l = linkedRepo();
    await using pair = await connect({ repositories: [l.fx.path] });
    const secretOid = git(l.outside.path, ['hash-object', 'f.txt']).trim();
    const res = await call(pair, 'git_stash', { repo_path: l.fx.repo, action: 'push' });
    expect(l.snapshot()).toEqual(OUTSIDE_FILES);
    let stashed = '';
    try {
      stashed = l.fx.git('ls-tree', '-r', 'stash@{0}');
    } catch {
      stashed = ''; // refused before a stash was made
    }
    expect(stashed).not.toContain(secretOid);
    if (!res.isError) expect(stashed).not.toMatch(/\tsub\/f\.txt$/m); // the stash records f.txt as deleted
    expect(lstatSync(join(l.fx.repo, 'sub')).isSymbolicLink()).toBe(true);
  });

  it.skipIf(noGit)('git_stash pop of a stash that adds sub/new.txt neither removes nor writes the outside file', async () => {
    using l = linkedRepo();
    rmSync(join(l.fx.repo, 'sub'));
    l.fx.git('checkout', '-q', '--', 'sub');
    write(l.fx.repo, { 'sub/new.txt': 'stashed\n' });
    l.fx.git('add', 'sub/new.txt');
    l.fx.git('stash', 'push', '-q');
    rmSync(join(l.fx.repo, 'sub'), { recursive: true });
    symlinkSync(l.outside.path, join(l.fx.repo, 'sub'));
    write(l.outside.path, { 'new.txt': SECRET });
    await using pair = await connect({ repositories: [l.fx.path] });
    await call(pair, 'git_stash', { repo_path: l.fx.repo, action: 'pop' });
    expect(l.snapshot()).toEqual({ ...OUTSIDE_FILES, 'new.txt': SECRET });
  });

  it.skipIf(noGit)('git_restore never removes or writes a file through the link', async () => {
    using l = linkedRepo();
    // sub/new.txt is in the index but not in HEAD: restoring "sub" from HEAD would remove it.
    rmSync(join(l.fx.repo, 'sub'));
    write(l.fx.repo, { 'sub/f.txt': 'inside\n', 'sub/a.txt': 'inside a\n', 'sub/0new.txt': 'staged\n' });
    l.fx.git('add', 'sub/0new.txt');
    rmSync(join(l.fx.repo, 'sub'), { recursive: true });
    symlinkSync(l.outside.path, join(l.fx.repo, 'sub'));
    write(l.outside.path, { '0new.txt': SECRET });
    await using pair = await connect({ repositories: [l.fx.path] });
    for (const args of [{ files: ['sub'], source: 'HEAD' }, { files: ['.'], source: 'HEAD' }, { files: ['sub'] }, { files: ['.'] }]) {
      await call(pair, 'git_restore', { repo_path: l.fx.repo, ...args });
      expect(l.snapshot(), JSON.stringify(args)).toEqual({ ...OUTSIDE_FILES, '0new.txt': SECRET });
    }
    const explicit = await call(pair, 'git_restore', { repo_path: l.fx.repo, files: ['sub/f.txt'] });
    expect(explicit.isError).toBe(true);
    expect(l.snapshot()).toEqual({ ...OUTSIDE_FILES, '0new.txt': SECRET });
  });

  it.skipIf(noGit)('git_checkout and git_merge to a branch that changes sub/f.txt never write through the link', async () => {
    using l = linkedRepo();
    l.fx.git('branch', 'other');
    // `other` changes sub/f.txt and adds sub/new.txt, made in a clone so the work tree keeps its link.
    using work = tempDir();
    const clone = join(work.path, 'clone');
    git(work.path, ['clone', '-q', '-b', 'other', l.fx.repo, clone]);
    write(clone, { 'sub/f.txt': 'changed on other\n', 'sub/new.txt': 'new on other\n' });
    git(clone, ['add', '.']);
    git(clone, ['commit', '-q', '-m', 'other']);
    git(clone, ['push', '-q', 'origin', 'other']);
    await using pair = await connect({ repositories: [l.fx.path] });
    await call(pair, 'git_checkout', { repo_path: l.fx.repo, branch_name: 'other' });
    expect(l.snapshot()).toEqual(OUTSIDE_FILES);
    const now = l.fx.git('rev-parse', '--abbrev-ref', 'HEAD').trim();
    if (now === 'other') l.fx.git('symbolic-ref', 'HEAD', 'refs/heads/master');
    await call(pair, 'git_merge', { repo_path: l.fx.repo, branch: 'other' });
    expect(l.snapshot()).toEqual(OUTSIDE_FILES);
    expect(existsSync(join(l.outside.path, 'new.txt'))).toBe(false);
  });

  it.skipIf(noGit)('git_blame, git_show and git_reset read the repository, never the outside file', async () => {
    using l = linkedRepo();
    await using pair = await connect({ repositories: [l.fx.path] });
    const blame = await call(pair, 'git_blame', { repo_path: l.fx.repo, file: 'sub/f.txt' });
    expect(text(blame)).not.toContain('SECRET');
    const show = await call(pair, 'git_show', { repo_path: l.fx.repo, revision: 'HEAD' });
    expect(text(show)).not.toContain('SECRET');
    const reset = await call(pair, 'git_reset', { repo_path: l.fx.repo });
    expect(reset.isError, text(reset)).toBeFalsy();
    const status = await call(pair, 'git_status', { repo_path: l.fx.repo });
    expect(text(status)).toBe(`Repository status:\n${strip(l.fx.git('status'))}`);
    expect(l.snapshot()).toEqual(OUTSIDE_FILES);
  });

  it.skipIf(noGit)('a .gitignore that is a symlink is not read, as git does not read it', async () => {
    using l = linkedRepo();
    write(l.outside.path, { patterns: '*.log\n' });
    symlinkSync(join(l.outside.path, 'patterns'), join(l.fx.repo, '.gitignore'));
    write(l.fx.repo, { 'x.log': 'not ignored\n' });
    await using pair = await connect({ repositories: [l.fx.path] });
    const res = await call(pair, 'git_status', { repo_path: l.fx.repo });
    expect((res.structuredContent as { untracked: string[] }).untracked).toEqual(['.gitignore', 'sub', 'x.log']);
    expect(text(res)).toBe(`Repository status:\n${strip(l.fx.git('status'))}`);
  });

  it.skipIf(noGit)('a symlinked file that leads outside is a link to git: its text is staged, never its target', async () => {
    using l = linkedRepo();
    rmSync(join(l.fx.repo, 'test.txt'));
    symlinkSync(join(l.outside.path, 'f.txt'), join(l.fx.repo, 'test.txt'));
    await using pair = await connect({ repositories: [l.fx.path] });
    const diff = await call(pair, 'git_diff_unstaged', { repo_path: l.fx.repo });
    expect(text(diff)).not.toContain('SECRET');
    expect(text(diff)).toBe(`Unstaged changes:\n${strip(l.fx.git('diff'))}`);
    await call(pair, 'git_add', { repo_path: l.fx.repo, files: ['test.txt'] });
    expect(l.fx.git('cat-file', '-p', ':test.txt')).toBe(join(l.outside.path, 'f.txt'));
  });
});
