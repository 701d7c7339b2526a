import { describe, expect, it } from 'vitest';
import { connect, git, gitRepo, hasGit, type RepoFixture, tempDir, text, write } from './helpers.js';

function commitOn(fx: RepoFixture, branch: string, file: string): string {
  fx.git('checkout', '-q', branch);
  write(fx.repo, { [file]: file });
  fx.git('add', file);
  fx.git('commit', '-q', '-m', `add ${file}`);
  return fx.git('rev-parse', 'HEAD').trim();
}

/** What the reference returns: git branch stdout with GitPython's trailing newline stripped. */
const cli = (fx: RepoFixture, ...args: string[]) => fx.git('branch', ...args).replace(/\n$/, '');

describe('git_branch', () => {
  it.skipIf(!hasGit)('lists local, remote and all branches exactly as git branch does', async () => {
    using fx = gitRepo();
    using remoteDir = tempDir();
    // A clone of the fixture gives origin/HEAD -> origin/master and remote branches.
    fx.git('branch', 'feature/a');
    fx.git('branch', 'zeta');
    git(remoteDir.path, ['clone', '-q', fx.repo, 'clone']);
    const clone = `${remoteDir.path}/clone`;
    git(clone, ['branch', 'local-only']);
    git(clone, ['branch', 'B-upper']);
    await using pair = await connect({ repositories: [fx.path, remoteDir.path] });
    const fxClone = { ...fx, repo: clone, git: (...a: string[]) => git(clone, a) } as RepoFixture;
    for (const [type, flags] of [
      ['local', []],
      ['remote', ['-r']],
      ['all', ['-a']],
    ] as const) {
      for (const target of [fx, fxClone]) {
        const res = await pair.client.callTool({ name: 'git_branch', arguments: { repo_path: target.repo, branch_type: type } });
        expect(res.isError, text(res)).toBeFalsy();
        expect(text(res), `${type} ${target.repo}`).toBe(cli(target, ...flags));
      }
    }
    const res = await pair.client.callTool({ name: 'git_branch', arguments: { repo_path: clone, branch_type: 'all' } });
    const data = res.structuredContent as { branches: { name: string; current: boolean; remote: boolean; commit: string }[] };
    expect(data.branches.find((b) => b.current)?.name).toBe('master');
    expect(data.branches.filter((b) => b.remote).map((b) => b.name)).toEqual([
      'remotes/origin/HEAD',
      'remotes/origin/feature/a',
      'remotes/origin/master',
      'remotes/origin/zeta',
    ]);
  });

  it('returns an empty text when there are no remote branches (reference test 4)', async () => {
    using fx = gitRepo();
    await using pair = await connect({ repositories: [fx.path] });
    const res = await pair.client.callTool({ name: 'git_branch', arguments: { repo_path: fx.repo, branch_type: 'remote' } });
    expect(res.isError).toBeFalsy();
    expect(text(res)).toBe('');
  });

  it.skipIf(!hasGit)('filters with contains / not_contains like git branch --contains / --no-contains', async () => {
    using fx = gitRepo();
    fx.git('branch', 'feature-branch');
    fx.git('branch', 'another-feature-branch');
    const featureSha = commitOn(fx, 'feature-branch', 'f.txt');
    const anotherSha = commitOn(fx, 'another-feature-branch', 'g.txt');
    fx.git('checkout', '-q', 'master');
    fx.git('branch', 'child', 'feature-branch');
    await using pair = await connect({ repositories: [fx.path] });
    const call = (args: Record<string, unknown>) =>
      pair.client.callTool({ name: 'git_branch', arguments: { repo_path: fx.repo, branch_type: 'local', ...args } });
    expect(text(await call({ contains: featureSha }))).toBe(cli(fx, '--contains', featureSha));
    expect(text(await call({ contains: featureSha }))).toBe('  child\n  feature-branch');
    expect(text(await call({ not_contains: anotherSha }))).toBe(cli(fx, '--no-contains', anotherSha));
    expect(text(await call({ contains: 'master', not_contains: featureSha.slice(0, 8) }))).toBe(
      cli(fx, '--contains', 'master', '--no-contains', featureSha.slice(0, 8)),
    );
    expect(text(await call({ contains: 'HEAD~0' }))).toBe(cli(fx, '--contains', 'HEAD~0'));
  });

  it('reports a bad commit as the reference GitCommandError text', async () => {
    using fx = gitRepo();
    await using pair = await connect({ repositories: [fx.path] });
    const res = await pair.client.callTool({
      name: 'git_branch',
      arguments: { repo_path: fx.repo, branch_type: 'local', contains: 'deadbeef' },
    });
    expect(res.isError).toBe(true);
    expect(text(res)).toBe(
      "Cmd('git') failed due to: exit code(129)\n  cmdline: git branch --contains deadbeef\n  stderr: 'error: malformed object name deadbeef'",
    );
    const res2 = await pair.client.callTool({
      name: 'git_branch',
      arguments: { repo_path: fx.repo, branch_type: 'remote', not_contains: 'nope' },
    });
    expect(text(res2)).toBe(
      "Cmd('git') failed due to: exit code(129)\n  cmdline: git branch -r --no-contains nope\n  stderr: 'error: malformed object name nope'",
    );
  });

  it('returns the reference success text for an invalid branch type', async () => {
    using fx = gitRepo();
    await using pair = await connect({ repositories: [fx.path] });
    const res = await pair.client.callTool({ name: 'git_branch', arguments: { repo_path: fx.repo, branch_type: 'weird' } });
    expect(res.isError).toBeFalsy();
    expect(text(res)).toBe('Invalid branch type: weird');
  });

  it.skipIf(!hasGit)('shows a detached HEAD as git branch does', async () => {
    using fx = gitRepo();
    write(fx.repo, { 'x.txt': 'x' });
    fx.git('add', 'x.txt');
    fx.git('commit', '-q', '-m', 'second');
    fx.git('tag', 'v1', 'HEAD~1');
    await using pair = await connect({ repositories: [fx.path] });
    for (const target of ['HEAD~1', 'v1']) {
      fx.git('checkout', '-q', target);
      const res = await pair.client.callTool({ name: 'git_branch', arguments: { repo_path: fx.repo, branch_type: 'local' } });
      expect(text(res), target).toBe(cli(fx));
      fx.git('checkout', '-q', 'master');
    }
    // Checked out through the tool, the reflog says the same to the git CLI.
    const res = await pair.client.callTool({ name: 'git_checkout', arguments: { repo_path: fx.repo, branch_name: 'v1' } });
    expect(res.isError, text(res)).toBeFalsy();
    const listed = await pair.client.callTool({ name: 'git_branch', arguments: { repo_path: fx.repo, branch_type: 'all' } });
    expect(text(listed)).toBe(cli(fx, '-a'));
    expect(text(listed)).toContain('* (HEAD detached at v1)');
  });
});
