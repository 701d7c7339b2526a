import { mkdirSync, readFileSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { conflictedMerge, connect, git, gitRepo, hasGit, type RepoFixture, text, write } from './helpers.js';

const indexBytes = (fx: RepoFixture) => readFileSync(join(fx.repo, '.git', 'index'));

/** `git status --porcelain` (-uall), the index as git reads it. */
const porcelain = (fx: RepoFixture) => fx.git('status', '--porcelain', '-uall');

describe('git_add', () => {
  it.skipIf(!hasGit)('["."] stages changes, deletions and untracked files, respecting .gitignore (reference test 8)', async () => {
    using fx = gitRepo();
    write(fx.repo, { 'gone.txt': 'g', 'mod.txt': 'm' });
    fx.git('add', '.');
    fx.git('commit', '-q', '-m', 'two');
    write(fx.repo, {
      'all_file.txt': 'all',
      'mod.txt': 'changed',
      '.gitignore': '*.log\nbuild/\n',
      'x.log': 'ignored',
      'build/out.txt': 'ignored',
      'deep/er/file.txt': 'deep',
    });
    unlinkSync(join(fx.repo, 'gone.txt'));
    symlinkSync('mod.txt', join(fx.repo, 'link'));
    await using pair = await connect({ repositories: [fx.path] });
    const res = await pair.client.callTool({ name: 'git_add', arguments: { repo_path: fx.repo, files: ['.'] } });
    expect(text(res)).toBe('Files staged successfully');
    // git sees exactly what `git add .` would have staged, and nothing left to add.
    expect(porcelain(fx)).toBe('A  .gitignore\nA  all_file.txt\nA  deep/er/file.txt\nD  gone.txt\nA  link\nM  mod.txt\n');
    expect(fx.git('ls-files', '-s', 'link')).toMatch(/^120000 /);
    expect(fx.git('diff', '--cached', '--stat', '--', 'x.log')).toBe('');
    // The index we wrote is valid for git (checksum, stat data): nothing unstaged and fsck is happy.
    expect(fx.git('diff-files', '--name-only')).toBe('');
    fx.git('fsck', '--no-progress');
    expect(res.structuredContent).toEqual({
      staged: ['.gitignore', 'all_file.txt', 'deep/er/file.txt', 'link', 'mod.txt'],
      removed: ['gone.txt'],
    });
  });

  it.skipIf(!hasGit)('stages only the named file (reference test 9) and a folder argument stages what is under it', async () => {
    using fx = gitRepo();
    write(fx.repo, {
      'file1.txt': '1',
      'file2.txt': '2',
      'dir/a.txt': 'a',
      'dir/sub/b.txt': 'b',
      'dir/skip.log': 's',
      'dir/.gitignore': '*.log\n',
    });
    await using pair = await connect({ repositories: [fx.path] });
    let res = await pair.client.callTool({ name: 'git_add', arguments: { repo_path: fx.repo, files: ['file1.txt'] } });
    expect(text(res)).toBe('Files staged successfully');
    expect(fx.git('diff', '--cached', '--name-only')).toBe('file1.txt\n');
    res = await pair.client.callTool({ name: 'git_add', arguments: { repo_path: fx.repo, files: ['dir'] } });
    expect(text(res)).toBe('Files staged successfully');
    expect(fx.git('diff', '--cached', '--name-only')).toBe('dir/.gitignore\ndir/a.txt\ndir/sub/b.txt\nfile1.txt\n');
  });

  it.skipIf(!hasGit)('stages the deletion of a named tracked file, an executable bit, and resolves a conflict', async () => {
    using fx = gitRepo();
    write(fx.repo, { 'run.sh': 'echo' });
    fx.git('add', '.');
    fx.git('commit', '-q', '-m', 'run');
    unlinkSync(join(fx.repo, 'test.txt'));
    fx.git('update-index', '--chmod=+x', 'run.sh'); // index says 755, work tree 644
    await using pair = await connect({ repositories: [fx.path] });
    const res = await pair.client.callTool({ name: 'git_add', arguments: { repo_path: fx.repo, files: ['test.txt', 'run.sh'] } });
    expect(text(res)).toBe('Files staged successfully');
    expect(porcelain(fx)).toBe('D  test.txt\n');
    expect(fx.git('ls-files', '-s', 'run.sh')).toMatch(/^100644 /);
  });

  it.skipIf(!hasGit)('marks a conflicted path resolved', async () => {
    using fx = gitRepo();
    conflictedMerge(fx, { 'test.txt': 'master\n' }, { 'test.txt': 'other\n' });
    write(fx.repo, { 'test.txt': 'resolved\n' });
    await using pair = await connect({ repositories: [fx.path] });
    await pair.client.callTool({ name: 'git_add', arguments: { repo_path: fx.repo, files: ['test.txt'] } });
    expect(fx.git('ls-files', '-s', 'test.txt')).toMatch(/^100644 [0-9a-f]{40} 0\ttest\.txt\n$/);
    expect(porcelain(fx)).toBe('M  test.txt\n');
  });

  it.skipIf(!hasGit)("a missing path fails with git's pathspec error and stages nothing", async () => {
    using fx = gitRepo();
    write(fx.repo, { 'ok.txt': 'ok' });
    const before = indexBytes(fx);
    await using pair = await connect({ repositories: [fx.path] });
    const res = await pair.client.callTool({ name: 'git_add', arguments: { repo_path: fx.repo, files: ['ok.txt', 'nope.txt'] } });
    expect(res.isError).toBe(true);
    expect(text(res)).toBe(
      "Cmd('git') failed due to: exit code(128)\n  cmdline: git add -- ok.txt nope.txt\n  stderr: 'fatal: pathspec 'nope.txt' did not match any files'",
    );
    expect(indexBytes(fx).equals(before)).toBe(true);
  });

  it.skipIf(!hasGit)('an ignored untracked file is refused as git refuses it, index unchanged', async () => {
    using fx = gitRepo();
    write(fx.repo, { '.gitignore': '*.log\n', 'a.log': 'x' });
    const before = indexBytes(fx);
    await using pair = await connect({ repositories: [fx.path] });
    const res = await pair.client.callTool({ name: 'git_add', arguments: { repo_path: fx.repo, files: ['a.log'] } });
    expect(res.isError).toBe(true);
    let stderr = '';
    try {
      git(fx.repo, ['add', '--', 'a.log']);
    } catch (error) {
      stderr = String((error as { stderr: string }).stderr).replace(/\n$/, '');
    }
    expect(text(res)).toBe(`Cmd('git') failed due to: exit code(1)\n  cmdline: git add -- a.log\n  stderr: '${stderr}'`);
    expect(indexBytes(fx).equals(before)).toBe(true);
  });

  describe('CVE-2026-27735: nothing outside the work tree is ever staged', () => {
    const cases: [string, (fx: RepoFixture) => string[]][] = [
      ['../outside.txt (reference test 10)', () => ['../outside.txt']],
      ['an absolute path outside (reference test 11)', (fx) => [join(fx.path, 'outside.txt')]],
      ['a file under a symlinked folder pointing outside', () => ['linked/secret.txt']],
      ['the symlinked folder itself, followed by a file inside it', () => ['inside.txt', 'linked/']],
      ['-f / --force as file names', () => ['-f', '--force']],
      ['.git/config', () => ['.git/config']],
      ['a valid file next to a refused one', () => ['inside.txt', '../outside.txt']],
    ];
    for (const [name, files] of cases) {
      it(`${name}: refused, index byte-identical`, async () => {
        using fx = gitRepo();
        writeFileSync(join(fx.path, 'outside.txt'), 'secret');
        mkdirSync(join(fx.path, 'elsewhere'));
        writeFileSync(join(fx.path, 'elsewhere', 'secret.txt'), 'secret');
        symlinkSync(join(fx.path, 'elsewhere'), join(fx.repo, 'linked'));
        write(fx.repo, { 'inside.txt': 'fine' });
        const before = indexBytes(fx);
        await using pair = await connect({ repositories: [fx.path] });
        const res = await pair.client.callTool({ name: 'git_add', arguments: { repo_path: fx.repo, files: files(fx) } });
        expect(res.isError, text(res)).toBe(true);
        expect(indexBytes(fx).equals(before)).toBe(true);
        const staged = fx.git('ls-files');
        expect(staged).not.toMatch(/outside|secret|config|linked/);
      });
    }

    it('the symlink itself (not beyond it) is staged as a link, never its target', async () => {
      using fx = gitRepo();
      mkdirSync(join(fx.path, 'elsewhere'));
      writeFileSync(join(fx.path, 'elsewhere', 'secret.txt'), 'secret');
      symlinkSync(join(fx.path, 'elsewhere'), join(fx.repo, 'linked'));
      await using pair = await connect({ repositories: [fx.path] });
      const res = await pair.client.callTool({ name: 'git_add', arguments: { repo_path: fx.repo, files: ['linked'] } });
      expect(text(res)).toBe('Files staged successfully');
      expect(fx.git('ls-files', '-s')).toMatch(/^120000 [0-9a-f]{40} 0\tlinked$/m);
      expect(fx.git('ls-files')).not.toMatch(/secret/);
    });
  });
});
