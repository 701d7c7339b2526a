/** git_init: offered with allowInit only, confined to the allowed roots, never through a symlink out. */
import { existsSync, mkdirSync, readdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { connect, git, gitRepo, hasGit, tempDir, text } from './helpers.js';

async function init(root: string, args: Record<string, unknown>) {
  await using pair = await connect({ repositories: [root], allowInit: true });
  const res = await pair.client.callTool({ name: 'git_init', arguments: args });
  return { res, text: text(res), structured: res.structuredContent as Record<string, unknown> | undefined };
}

describe('git_init', () => {
  it('is offered only with allowInit', async () => {
    using root = tempDir();
    await using off = await connect({ repositories: [root.path] });
    expect((await off.client.listTools()).tools.map((t) => t.name)).not.toContain('git_init');
    await using on = await connect({ repositories: [root.path], allowInit: true });
    const tool = (await on.client.listTools()).tools.find((t) => t.name === 'git_init');
    expect(tool?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false, openWorldHint: false });
  });

  it.skipIf(!hasGit)('creates a repository in a new nested folder inside the root, which the git CLI accepts', async () => {
    using root = tempDir();
    const target = join(root.path, 'a', 'b', 'project');
    const { res, text: out, structured } = await init(root.path, { repo_path: target });
    expect(res.isError, out).toBeFalsy();
    expect(out).toBe(`Initialized empty Git repository in ${join(target, '.git')}`);
    expect(structured).toEqual({ path: target, git_dir: join(target, '.git'), initial_branch: 'master' });
    expect(git(target, ['rev-parse', '--show-toplevel']).trim()).toBe(target);
    expect(git(target, ['rev-parse', '--is-bare-repository']).trim()).toBe('false');
    expect(git(target, ['symbolic-ref', 'HEAD']).trim()).toBe('refs/heads/master');
    expect(git(target, ['status', '--porcelain']).trim()).toBe('');
    git(target, ['commit', '-q', '--allow-empty', '-m', 'first']);
    expect(git(target, ['fsck', '--strict']).trim()).toBe('');
  });

  it.skipIf(!hasGit)('initializes an existing folder with files, on the given initial branch', async () => {
    using root = tempDir();
    const target = join(root.path, 'existing');
    mkdirSync(target);
    const { res, text: out } = await init(root.path, { repo_path: target, initial_branch: 'main' });
    expect(res.isError, out).toBeFalsy();
    expect(git(target, ['symbolic-ref', 'HEAD']).trim()).toBe('refs/heads/main');
    // The root itself may become a repository too.
    const atRoot = await init(root.path, { repo_path: root.path });
    expect(atRoot.res.isError, atRoot.text).toBeFalsy();
    expect(existsSync(join(root.path, '.git', 'HEAD'))).toBe(true);
  });

  it('refuses an existing repository, changing nothing', async () => {
    using fx = gitRepo();
    const before = readdirSync(join(fx.repo, '.git')).sort();
    const { res, text: out } = await init(fx.path, { repo_path: fx.repo });
    expect(res.isError).toBe(true);
    expect(out).toContain('already is a git repository');
    expect(readdirSync(join(fx.repo, '.git')).sort()).toEqual(before);
  });

  it('refuses paths outside the roots, such as a .ssh folder elsewhere, creating nothing', async () => {
    using root = tempDir();
    using elsewhere = tempDir();
    const ssh = join(elsewhere.path, '.ssh');
    mkdirSync(ssh);
    for (const repo_path of [ssh, join(elsewhere.path, 'new', 'repo'), join(root.path, '..', 'escape'), `${root.path}-evil`]) {
      const { res, text: out } = await init(root.path, { repo_path });
      expect(res.isError, repo_path).toBe(true);
      expect(out, repo_path).toContain('outside');
    }
    expect(readdirSync(elsewhere.path)).toEqual(['.ssh']);
    expect(readdirSync(ssh)).toEqual([]);
    expect(existsSync(join(root.path, '..', 'escape'))).toBe(false);
    expect(existsSync(`${root.path}-evil`)).toBe(false);
  });

  it('never follows a symlink out of the root', async () => {
    using root = tempDir();
    using elsewhere = tempDir();
    symlinkSync(elsewhere.path, join(root.path, 'link'));
    for (const repo_path of [join(root.path, 'link'), join(root.path, 'link', 'sub', 'repo')]) {
      const { res, text: out } = await init(root.path, { repo_path });
      expect(res.isError, repo_path).toBe(true);
      expect(out, repo_path).toContain('outside');
    }
    expect(readdirSync(elsewhere.path)).toEqual([]);
    // A dangling link is refused too, not created through.
    symlinkSync(join(elsewhere.path, 'missing'), join(root.path, 'dangling'));
    const dangling = await init(root.path, { repo_path: join(root.path, 'dangling', 'repo') });
    expect(dangling.res.isError).toBe(true);
    expect(readdirSync(elsewhere.path)).toEqual([]);
  });

  it('refuses credential folders and .git folders even inside a root', async () => {
    using root = tempDir();
    mkdirSync(join(root.path, '.ssh'));
    mkdirSync(join(root.path, 'repo', '.git'), { recursive: true });
    for (const repo_path of [join(root.path, '.ssh'), join(root.path, '.aws', 'x'), join(root.path, 'repo', '.git', 'inner')]) {
      const { res, text: out } = await init(root.path, { repo_path });
      expect(res.isError, repo_path).toBe(true);
      expect(out, repo_path).toMatch(/inside a '\.(ssh|aws|git)' folder/);
    }
    expect(readdirSync(join(root.path, '.ssh'))).toEqual([]);
    expect(existsSync(join(root.path, '.aws'))).toBe(false);
  });

  it('refuses invalid initial branch names, creating nothing', async () => {
    using root = tempDir();
    for (const initial_branch of ['-b', 'a..b', 'has space', 'HEAD']) {
      const { res, text: out } = await init(root.path, { repo_path: join(root.path, 'r'), initial_branch });
      expect(res.isError, initial_branch).toBe(true);
      expect(out, initial_branch).toContain('is not a valid branch name');
    }
    expect(existsSync(join(root.path, 'r'))).toBe(false);
  });

  it('refuses without any allowed root', async () => {
    using root = tempDir();
    await using pair = await connect({ allowInit: true });
    const res = await pair.client.callTool({ name: 'git_init', arguments: { repo_path: join(root.path, 'r') } });
    expect(res.isError).toBe(true);
    expect(existsSync(join(root.path, 'r'))).toBe(false);
  });
});
