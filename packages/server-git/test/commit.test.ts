import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { conflictedMerge, connect, gitEnv, gitRepo, hasGit, type RepoFixture, tempDir, text, write } from './helpers.js';

const AUTHOR = 'Test User <test@example.com> 1705325425 +0100';

function commitOf(res: unknown): string {
  const m = /^Changes committed successfully with hash ([0-9a-f]{40})$/.exec(text(res));
  expect(m, text(res)).not.toBeNull();
  return m![1]!;
}

/** The identity-free environment: no GIT_AUTHOR_* / GIT_COMMITTER_*, no global config. */
function bareEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env = gitEnv(extra);
  for (const k of ['GIT_AUTHOR_NAME', 'GIT_AUTHOR_EMAIL', 'GIT_COMMITTER_NAME', 'GIT_COMMITTER_EMAIL']) delete env[k];
  return { ...env, ...extra };
}

const head = (fx: RepoFixture) => fx.git('rev-parse', 'HEAD').trim();

describe('git_commit', () => {
  it.skipIf(!hasGit)('commits the index as is; the object is exactly what git cat-file shows (reference test 18)', async () => {
    using fx = gitRepo();
    write(fx.repo, { 'staged.txt': 'staged\n', 'unstaged.txt': 'not staged\n', 'dir/x.sh': 'x' });
    fx.git('add', 'staged.txt', 'dir/x.sh');
    fx.git('update-index', '--chmod=+x', 'dir/x.sh');
    const parent = head(fx);
    const tree = fx.git('write-tree').trim();
    await using pair = await connect({ repositories: [fx.path] });
    const res = await pair.client.callTool({ name: 'git_commit', arguments: { repo_path: fx.repo, message: 'test commit message' } });
    const hash = commitOf(res);
    expect(head(fx)).toBe(hash);
    expect(fx.git('cat-file', '-p', 'HEAD')).toBe(
      `tree ${tree}\nparent ${parent}\nauthor ${AUTHOR}\ncommitter ${AUTHOR}\n\ntest commit message`,
    );
    expect(fx.git('log', '-1', '--format=%B').trim()).toBe('test commit message');
    // dir/x.sh is 755 in the index only: still an unstaged mode change, as before the commit.
    expect(fx.git('status', '--porcelain')).toBe(' M dir/x.sh\n?? unstaged.txt\n');
    expect(fx.git('reflog', '-1', '--format=%gs')).toBe('commit: test commit message\n');
    expect(res.structuredContent).toEqual({ hash, branch: 'master', parents: [parent] });
    fx.git('fsck', '--no-progress', '--strict');
  });

  it.skipIf(!hasGit)('keeps the message verbatim (multi-line, trailing newline, unicode) and allows empty commits', async () => {
    using fx = gitRepo();
    const tree = fx.git('rev-parse', 'HEAD^{tree}').trim();
    await using pair = await connect({ repositories: [fx.path] });
    const message = 'Subject – é\n\nBody line\n';
    const res = await pair.client.callTool({ name: 'git_commit', arguments: { repo_path: fx.repo, message } });
    commitOf(res);
    const raw = fx.git('cat-file', 'commit', 'HEAD');
    expect(raw.endsWith(`\n\n${message}`)).toBe(true);
    expect(raw).toContain(`tree ${tree}\n`);
  });

  it.skipIf(!hasGit)('makes the root commit on an unborn branch', async () => {
    using fx = gitRepo({ initial: false });
    write(fx.repo, { 'a.txt': 'a' });
    fx.git('add', '.');
    await using pair = await connect({ repositories: [fx.path] });
    const hash = commitOf(await pair.client.callTool({ name: 'git_commit', arguments: { repo_path: fx.repo, message: 'root' } }));
    expect(fx.git('rev-parse', 'master').trim()).toBe(hash);
    expect(fx.git('cat-file', '-p', hash)).not.toMatch(/^parent /m);
    expect(fx.git('reflog', '-1', '--format=%gs')).toBe('commit (initial): root\n');
  });

  it.skipIf(!hasGit)('concludes a merge: MERGE_HEAD becomes the second parent and is removed', async () => {
    using fx = gitRepo();
    fx.git('checkout', '-q', '-b', 'other');
    write(fx.repo, { 'other.txt': 'o' });
    fx.git('add', '.');
    fx.git('commit', '-q', '-m', 'other');
    const other = head(fx);
    fx.git('checkout', '-q', 'master');
    write(fx.repo, { 'mine.txt': 'm' });
    fx.git('add', '.');
    fx.git('commit', '-q', '-m', 'mine');
    const mine = head(fx);
    fx.git('merge', '-q', '--no-commit', 'other');
    await using pair = await connect({ repositories: [fx.path] });
    const hash = commitOf(await pair.client.callTool({ name: 'git_commit', arguments: { repo_path: fx.repo, message: 'merge' } }));
    expect(fx.git('log', '-1', '--format=%P', hash).trim()).toBe(`${mine} ${other}`);
    expect(fx.git('status', '--porcelain')).toBe('');
    expect(existsSync(join(fx.repo, '.git', 'MERGE_HEAD'))).toBe(false);
  });

  it.skipIf(!hasGit)('refuses while paths are unmerged, HEAD unchanged', async () => {
    using fx = gitRepo();
    conflictedMerge(fx, { 'test.txt': 'master\n' }, { 'test.txt': 'other\n' });
    const before = head(fx);
    await using pair = await connect({ repositories: [fx.path] });
    const res = await pair.client.callTool({ name: 'git_commit', arguments: { repo_path: fx.repo, message: 'x' } });
    expect(res.isError).toBe(true);
    expect(text(res)).toMatch(/unmerged files \(test\.txt\)/);
    expect(head(fx)).toBe(before);
  });

  it.skipIf(!hasGit)('commits on a detached HEAD', async () => {
    using fx = gitRepo();
    fx.git('checkout', '-q', '--detach');
    await using pair = await connect({ repositories: [fx.path] });
    const res = await pair.client.callTool({ name: 'git_commit', arguments: { repo_path: fx.repo, message: 'detached' } });
    const hash = commitOf(res);
    expect(head(fx)).toBe(hash);
    expect(fx.git('rev-parse', 'master').trim()).not.toBe(hash);
    expect((res.structuredContent as { branch: unknown }).branch).toBeNull();
  });

  describe('identity', () => {
    it.skipIf(!hasGit)('from the repository config when the environment has none (author and committer)', async () => {
      using fx = gitRepo();
      fx.git('config', 'user.name', 'Repo Person');
      fx.git('config', 'user.email', 'repo@example.com');
      await using pair = await connect({ repositories: [fx.path], env: bareEnv(), home: '/nonexistent-home' });
      commitOf(await pair.client.callTool({ name: 'git_commit', arguments: { repo_path: fx.repo, message: 'cfg' } }));
      expect(fx.git('log', '-1', '--format=%an <%ae>|%cn <%ce>|%ad|%cd', '--date=raw')).toBe(
        'Repo Person <repo@example.com>|Repo Person <repo@example.com>|1705325425 +0100|1705325425 +0100\n',
      );
    });

    it.skipIf(!hasGit)('environment first, then ~/.gitconfig, then $XDG_CONFIG_HOME/git/config, or $GIT_CONFIG_GLOBAL alone', async () => {
      using home = tempDir();
      writeFileSync(join(home.path, '.gitconfig'), '[user]\n\tname = Home Person\n');
      mkdirSync(join(home.path, 'xdg', 'git'), { recursive: true });
      writeFileSync(join(home.path, 'xdg', 'git', 'config'), '[user]\n\tname = Xdg Person\n\temail = xdg@example.com\n');
      writeFileSync(join(home.path, 'global'), '[user]\n\tname = "Global Person"\n\temail = global@example.com ; comment\n');
      using fx = gitRepo();
      const env = bareEnv({ XDG_CONFIG_HOME: join(home.path, 'xdg'), GIT_AUTHOR_NAME: 'Env Author' });
      delete env.GIT_CONFIG_GLOBAL;
      {
        await using pair = await connect({ repositories: [fx.path], env, home: home.path });
        commitOf(await pair.client.callTool({ name: 'git_commit', arguments: { repo_path: fx.repo, message: 'a' } }));
        expect(fx.git('log', '-1', '--format=%an <%ae>|%cn <%ce>')).toBe('Env Author <xdg@example.com>|Home Person <xdg@example.com>\n');
      }
      {
        await using pair = await connect({
          repositories: [fx.path],
          env: { ...env, GIT_CONFIG_GLOBAL: join(home.path, 'global') },
          home: home.path,
        });
        commitOf(await pair.client.callTool({ name: 'git_commit', arguments: { repo_path: fx.repo, message: 'b' } }));
        expect(fx.git('log', '-1', '--format=%an <%ae>|%cn <%ce>')).toBe(
          'Env Author <global@example.com>|Global Person <global@example.com>\n',
        );
      }
    });

    it.skipIf(!hasGit)('no identity anywhere: a clear error, HEAD and index unchanged, no made-up author', async () => {
      using fx = gitRepo();
      write(fx.repo, { 'a.txt': 'a' });
      fx.git('add', 'a.txt');
      const before = head(fx);
      const status = fx.git('status', '--porcelain');
      await using pair = await connect({ repositories: [fx.path], env: bareEnv(), home: '/nonexistent-home' });
      const res = await pair.client.callTool({ name: 'git_commit', arguments: { repo_path: fx.repo, message: 'x' } });
      expect(res.isError).toBe(true);
      expect(text(res)).toMatch(/^Author identity unknown/);
      expect(text(res)).toContain('git config --global user.email "you@example.com"');
      expect(text(res)).toContain('GIT_AUTHOR_NAME');
      expect(head(fx)).toBe(before);
      expect(fx.git('status', '--porcelain')).toBe(status);
    });

    it.skipIf(!hasGit)("dates in git's raw, ISO 8601 and RFC 2822 forms; a bad one is refused", async () => {
      using fx = gitRepo();
      const cases: [string, string][] = [
        ['@1700000000 -0500', '1700000000 -0500'],
        ['2024-02-29T23:59:59Z', '1709251199 +0000'],
        ['Mon, 15 Jan 2024 14:30:25 +0100', '1705325425 +0100'],
        ['Mon Jan 15 14:30:25 2024 +0530', '1705309225 +0530'],
      ];
      for (const [date, raw] of cases) {
        await using pair = await connect({ repositories: [fx.path], env: gitEnv({ GIT_AUTHOR_DATE: date }) });
        commitOf(await pair.client.callTool({ name: 'git_commit', arguments: { repo_path: fx.repo, message: date } }));
        expect(fx.git('log', '-1', '--format=%ad', '--date=raw')).toBe(`${raw}\n`);
      }
      const before = head(fx);
      await using pair = await connect({ repositories: [fx.path], env: gitEnv({ GIT_COMMITTER_DATE: 'next tuesday-ish' }) });
      const res = await pair.client.callTool({ name: 'git_commit', arguments: { repo_path: fx.repo, message: 'bad' } });
      expect(res.isError).toBe(true);
      expect(text(res)).toMatch(/invalid date format: next tuesday-ish/);
      expect(head(fx)).toBe(before);
    });
  });
});
