/**
 * Confinement, default-deny: roots from --repository or the client, realpath on everything, git dirs
 * checked too. Each refusal is checked through a tool call and leaves the repository unchanged.
 */
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createLogger } from '@mcpkit/protocol-core';
import { describe, expect, it, vi } from 'vitest';
import { resolveRepository, resolveWorkPath } from '../src/engine/confine.js';
import { connect, git, gitRepo, tempDir, text } from './helpers.js';

/** HEAD, the index and the status, to check that a refusal changed nothing. */
function snapshot(repo: string): string {
  return [
    git(repo, ['rev-parse', 'HEAD']),
    readFileSync(join(repo, '.git', 'index')).toString('base64'),
    git(repo, ['status', '--porcelain']),
  ].join('\n');
}

describe('repo_path confinement', () => {
  it('refuses a prefix look-alike beside the allowed repository', async () => {
    using fx = gitRepo();
    const evil = `${fx.repo}-evil`;
    mkdirSync(evil);
    git(evil, ['init', '-q']);
    await expect(resolveRepository(evil, [fx.repo])).rejects.toThrow(`Repository path '${evil}' is outside the allowed root '${fx.repo}'`);
    await expect(resolveRepository(fx.repo, [fx.repo])).resolves.toMatchObject({ dir: fx.repo, gitdir: join(fx.repo, '.git') });
  });

  it('collapses .. before checking', async () => {
    using fx = gitRepo();
    using other = gitRepo();
    const sneaky = join(fx.repo, '..', '..', other.path.split('/').pop()!, 'repo');
    await expect(resolveRepository(sneaky, [fx.repo])).rejects.toThrow(/is outside the allowed root/);
  });

  it('follows symlinks: a link inside the root to a repository outside is refused', async () => {
    using root = tempDir();
    using outside = gitRepo();
    symlinkSync(outside.repo, join(root.path, 'link'));
    await expect(resolveRepository(join(root.path, 'link'), [root.path])).rejects.toThrow(/is outside the allowed root/);
  });

  it('refuses a .git file pointing outside the roots, and a commondir pointing outside', async () => {
    using root = tempDir();
    using outside = gitRepo();
    const repo = join(root.path, 'repo');
    mkdirSync(repo);
    writeFileSync(join(repo, '.git'), `gitdir: ${join(outside.repo, '.git')}\n`);
    await expect(resolveRepository(repo, [root.path])).rejects.toThrow(
      `The git directory of '${repo}' ('${join(outside.repo, '.git')}') is outside the allowed root '${root.path}'`,
    );
    const linked = join(root.path, 'linked');
    const gitdir = join(root.path, 'gitdir');
    mkdirSync(linked);
    mkdirSync(gitdir);
    writeFileSync(join(gitdir, 'HEAD'), 'ref: refs/heads/master\n');
    writeFileSync(join(gitdir, 'commondir'), `${join(outside.repo, '.git')}\n`);
    writeFileSync(join(linked, '.git'), `gitdir: ${gitdir}\n`);
    await expect(resolveRepository(linked, [root.path])).rejects.toThrow(/shared git directory .* is outside the allowed root/);
  });

  it('says where the top is when repo_path is a folder inside a work tree', async () => {
    using fx = gitRepo();
    mkdirSync(join(fx.repo, 'sub'));
    await expect(resolveRepository(join(fx.repo, 'sub'), [fx.path])).rejects.toThrow(
      `'${join(fx.repo, 'sub')}' is not the top of a git work tree; the repository is at '${fx.repo}'`,
    );
    await expect(resolveRepository(fx.path, [fx.path])).rejects.toThrow(`'${fx.path}' is not a git repository (it has no .git)`);
  });

  it('confines file arguments to the work tree: outside, .git, and through a symlinked folder', async () => {
    using fx = gitRepo();
    using outside = tempDir();
    const repo = await resolveRepository(fx.repo, [fx.path]);
    await expect(resolveWorkPath(repo, 'a/b.txt')).resolves.toBe('a/b.txt');
    await expect(resolveWorkPath(repo, join(fx.repo, 'c.txt'))).resolves.toBe('c.txt');
    await expect(resolveWorkPath(repo, '../outside.txt')).rejects.toThrow(`Path '../outside.txt' is outside the repository '${fx.repo}'`);
    await expect(resolveWorkPath(repo, join(outside.path, 'x'))).rejects.toThrow(/is outside the repository/);
    await expect(resolveWorkPath(repo, '.git/config')).rejects.toThrow(/inside the .git directory/);
    await expect(resolveWorkPath(repo, 'sub/../.GIT/hooks/x')).rejects.toThrow(/inside the .git directory/);
    symlinkSync(outside.path, join(fx.repo, 'out'));
    await expect(resolveWorkPath(repo, 'out/secret')).rejects.toThrow(/beyond a symbolic link/);
  });
});

describe('where the roots come from', () => {
  it('without --repository, uses the client roots, and lists them again after roots/list_changed', async () => {
    using a = gitRepo();
    using b = gitRepo();
    let roots = [a.path];
    let asked = 0;
    const lines: string[] = [];
    const logger = createLogger({ name: 'git', level: 'debug', write: (line) => lines.push(line) });
    await using pair = await connect({ logger }, { capabilities: { roots: { listChanged: true } } });
    pair.client.setRequestHandler('roots/list', async () => {
      asked += 1;
      return { roots: roots.map((r) => ({ uri: pathToFileURL(r).href, name: 'workspace' })) };
    });
    const okA = await pair.client.callTool({ name: 'git_status', arguments: { repo_path: a.repo } });
    expect(okA.isError, text(okA)).toBeFalsy();
    const noB = await pair.client.callTool({ name: 'git_status', arguments: { repo_path: b.repo } });
    expect(noB.isError).toBe(true);
    expect(text(noB)).toBe(`Repository path '${b.repo}' is outside the allowed root '${a.path}'`);
    expect(asked).toBe(1);
    roots = [b.path];
    await pair.client.notification({ method: 'notifications/roots/list_changed' });
    // The server has taken the notification once it says so; the next call lists the roots again.
    await vi.waitFor(() => expect(lines.some((l) => l.includes('roots changed'))).toBe(true));
    const okB = await pair.client.callTool({ name: 'git_status', arguments: { repo_path: b.repo } });
    expect(okB.isError, text(okB)).toBeFalsy();
    expect(asked).toBe(2);
  });

  it('a client without roots and no --repository: every call is refused with how to allow one', async () => {
    using fx = gitRepo();
    const before = snapshot(fx.repo);
    await using pair = await connect();
    for (const [name, args] of [
      ['git_status', {}],
      ['git_add', { files: ['test.txt'] }],
      ['git_commit', { message: 'x' }],
    ] as const) {
      const res = await pair.client.callTool({ name, arguments: { repo_path: fx.repo, ...args } });
      expect(res.isError, name).toBe(true);
      expect(text(res)).toMatch(/^No repository is allowed for this session\. Start the server with --repository <path>/);
    }
    expect(snapshot(fx.repo)).toBe(before);
  });

  it('a refused repo_path leaves the repository unchanged for writing tools', async () => {
    using allowed = gitRepo();
    using other = gitRepo();
    writeFileSync(join(other.repo, 'new.txt'), 'x');
    const before = snapshot(other.repo);
    await using pair = await connect({ repositories: [allowed.path] });
    for (const [name, args] of [
      ['git_add', { files: ['new.txt'] }],
      ['git_commit', { message: 'x' }],
      ['git_reset', {}],
      ['git_create_branch', { branch_name: 'b' }],
      ['git_checkout', { branch_name: 'master' }],
    ] as const) {
      const res = await pair.client.callTool({ name, arguments: { repo_path: other.repo, ...args } });
      expect(res.isError, name).toBe(true);
      expect(text(res), name).toMatch(/is outside the allowed root/);
    }
    expect(snapshot(other.repo)).toBe(before);
    expect(git(other.repo, ['branch', '--list', 'b'])).toBe('');
  });
});
