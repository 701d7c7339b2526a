import { chmodSync, existsSync, lstatSync, readFileSync, readlinkSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { conflictedMerge, connect, gitRepo, hasGit, type RepoFixture, text, write } from './helpers.js';

const porcelain = (fx: RepoFixture) => fx.git('status', '--porcelain', '-uall');
const read = (fx: RepoFixture, f: string) => readFileSync(join(fx.repo, f), 'utf8');

/** Two identical repositories (fixed dates make identical commits): one for us, one for the git CLI. */
function twins(setup: (fx: RepoFixture) => void): [RepoFixture, RepoFixture] {
  const a = gitRepo();
  const b = gitRepo();
  setup(a);
  setup(b);
  return [a, b];
}

function scenario(fx: RepoFixture) {
  write(fx.repo, { 'a.txt': 'a1\n', 'dir/b.txt': 'b1\n', 'dir/c.txt': 'c1\n', 'run.sh': 'echo\n' });
  chmodSync(join(fx.repo, 'run.sh'), 0o755);
  symlinkSync('a.txt', join(fx.repo, 'link'));
  fx.git('add', '.');
  fx.git('commit', '-q', '-m', 'base');
  write(fx.repo, { 'a.txt': 'a2 staged\n', 'dir/b.txt': 'b2 staged\n', 'new.txt': 'new staged\n' });
  fx.git('add', '.');
  write(fx.repo, { 'a.txt': 'a3 unstaged\n', 'dir/c.txt': 'c3 unstaged\n' });
  unlinkSync(join(fx.repo, 'run.sh'));
  unlinkSync(join(fx.repo, 'link'));
}

describe('git_reset', () => {
  it.skipIf(!hasGit)('unstages everything, work tree untouched (reference test 19), like git reset -q', async () => {
    const [ours, theirs] = twins(scenario);
    using _a = ours;
    using _b = theirs;
    await using pair = await connect({ repositories: [ours.path] });
    const res = await pair.client.callTool({ name: 'git_reset', arguments: { repo_path: ours.repo } });
    expect(text(res)).toBe('All staged changes reset');
    theirs.git('reset', '-q');
    expect(porcelain(ours)).toBe(porcelain(theirs));
    expect(porcelain(ours)).toContain('?? new.txt');
    expect(read(ours, 'a.txt')).toBe('a3 unstaged\n');
    expect(ours.git('diff', '--cached', '--name-only')).toBe('');
    expect((res.structuredContent as { unstaged: string[] }).unstaged).toEqual(['a.txt', 'dir/b.txt', 'new.txt']);
  });

  it.skipIf(!hasGit)('keeps stat data of unchanged entries (git sees no unstaged change) and clears a conflict', async () => {
    using fx = gitRepo();
    conflictedMerge(fx, { 'test.txt': 'master\n', 'same.txt': 's' }, { 'test.txt': 'other\n', 'same.txt': 's' });
    const before = readFileSync(join(fx.repo, '.git', 'index'));
    await using pair = await connect({ repositories: [fx.path] });
    await pair.client.callTool({ name: 'git_reset', arguments: { repo_path: fx.repo } });
    expect(readFileSync(join(fx.repo, '.git', 'index')).equals(before)).toBe(false);
    expect(fx.git('ls-files', '-u')).toBe('');
    expect(fx.git('diff', '--cached', '--name-only')).toBe('');
    expect(fx.git('diff-files', '--name-only')).toBe('test.txt\n'); // only the conflicted file differs
  });

  it.skipIf(!hasGit)('on an unborn branch empties the index', async () => {
    using fx = gitRepo({ initial: false });
    write(fx.repo, { 'a.txt': 'a' });
    fx.git('add', '.');
    await using pair = await connect({ repositories: [fx.path] });
    const res = await pair.client.callTool({ name: 'git_reset', arguments: { repo_path: fx.repo } });
    expect(text(res)).toBe('All staged changes reset');
    expect(fx.git('ls-files')).toBe('');
    expect(porcelain(fx)).toBe('?? a.txt\n');
  });
});

describe('git_restore', () => {
  const cases: { name: string; args: Record<string, unknown>; cli: string[] }[] = [
    {
      name: 'work-tree files from the index',
      args: { files: ['a.txt', 'dir', 'run.sh', 'link'] },
      cli: ['restore', '--', 'a.txt', 'dir', 'run.sh', 'link'],
    },
    {
      name: 'work-tree files from HEAD (index untouched)',
      args: { files: ['a.txt', 'new.txt'], source: 'HEAD' },
      cli: ['restore', '--source=HEAD', '--', 'a.txt', 'new.txt'],
    },
    {
      name: 'index entries from HEAD (work tree untouched)',
      args: { files: ['a.txt', 'new.txt'], staged: true },
      cli: ['restore', '--staged', '--', 'a.txt', 'new.txt'],
    },
    { name: 'the whole tree from the index', args: { files: ['.'] }, cli: ['restore', '--', '.'] },
  ];
  for (const c of cases) {
    it.skipIf(!hasGit)(`${c.name}: same result as git ${c.cli.join(' ')}`, async () => {
      const [ours, theirs] = twins(scenario);
      using _a = ours;
      using _b = theirs;
      await using pair = await connect({ repositories: [ours.path] });
      const res = await pair.client.callTool({ name: 'git_restore', arguments: { repo_path: ours.repo, ...c.args } });
      expect(res.isError, text(res)).toBeFalsy();
      theirs.git(...c.cli);
      expect(porcelain(ours)).toBe(porcelain(theirs));
      expect(ours.git('diff', '--cached')).toBe(theirs.git('diff', '--cached'));
      expect(ours.git('diff')).toBe(theirs.git('diff'));
      for (const f of ['a.txt', 'dir/b.txt', 'dir/c.txt', 'new.txt', 'run.sh']) {
        expect(existsSync(join(ours.repo, f)), f).toBe(existsSync(join(theirs.repo, f)));
        if (existsSync(join(theirs.repo, f))) {
          expect(read(ours, f), f).toBe(read(theirs, f));
          expect(lstatSync(join(ours.repo, f)).mode, f).toBe(lstatSync(join(theirs.repo, f)).mode);
        }
      }
      expect(existsSync(join(ours.repo, 'link'))).toBe(existsSync(join(theirs.repo, 'link')));
      if (existsSync(join(theirs.repo, 'link'))) expect(readlinkSync(join(ours.repo, 'link'))).toBe('a.txt');
    });
  }

  it.skipIf(!hasGit)('lists what it restored', async () => {
    using fx = gitRepo();
    write(fx.repo, { 'test.txt': 'changed' });
    await using pair = await connect({ repositories: [fx.path] });
    const res = await pair.client.callTool({ name: 'git_restore', arguments: { repo_path: fx.repo, files: ['test.txt'] } });
    expect(res.structuredContent).toEqual({ restored: ['test.txt'], removed: [], source: 'index', staged: false });
    expect(text(res)).toBe('Restored 1 work-tree file from the index: test.txt');
    expect(read(fx, 'test.txt')).toBe('test');
  });

  it.skipIf(!hasGit)('an unknown path fails like git and nothing is restored; refusals come before any change', async () => {
    using fx = gitRepo();
    write(fx.repo, { 'test.txt': 'changed' });
    writeFileSync(join(fx.path, 'outside.txt'), 'o');
    await using pair = await connect({ repositories: [fx.path] });
    let res = await pair.client.callTool({ name: 'git_restore', arguments: { repo_path: fx.repo, files: ['test.txt', 'nope.txt'] } });
    expect(res.isError).toBe(true);
    expect(text(res)).toBe("error: pathspec 'nope.txt' did not match any file(s) known to git");
    for (const bad of ['../outside.txt', join(fx.path, 'outside.txt'), '.git/config']) {
      res = await pair.client.callTool({ name: 'git_restore', arguments: { repo_path: fx.repo, files: ['test.txt', bad] } });
      expect(res.isError, bad).toBe(true);
    }
    res = await pair.client.callTool({
      name: 'git_restore',
      arguments: { repo_path: fx.repo, files: ['test.txt'], staged: true, source: 'index' },
    });
    expect(res.isError).toBe(true);
    expect(read(fx, 'test.txt')).toBe('changed');
    expect(readFileSync(join(fx.path, 'outside.txt'), 'utf8')).toBe('o');
  });

  it.skipIf(!hasGit)('never writes through a symlinked folder', async () => {
    using fx = gitRepo();
    write(fx.repo, { 'd/f.txt': 'tracked' });
    fx.git('add', '.');
    fx.git('commit', '-q', '-m', 'd');
    // Replace the folder by a symlink to a folder outside the work tree.
    unlinkSync(join(fx.repo, 'd', 'f.txt'));
    fx.git('rm', '-q', '--cached', 'd/f.txt');
    fx.git('reset', '-q');
    write(fx.path, { 'elsewhere/keep.txt': 'k' });
    const { rmdirSync } = await import('node:fs');
    rmdirSync(join(fx.repo, 'd'));
    symlinkSync(join(fx.path, 'elsewhere'), join(fx.repo, 'd'));
    await using pair = await connect({ repositories: [fx.path] });
    const res = await pair.client.callTool({ name: 'git_restore', arguments: { repo_path: fx.repo, files: ['.'] } });
    expect(res.isError).toBe(true);
    expect(existsSync(join(fx.path, 'elsewhere', 'f.txt'))).toBe(false);
  });
});
