/**
 * The engine as a library: `openRepository` on a real repository returns plain data (no MCP answer
 * shapes) and refuses with a GitError whose code says what kind of failure it is. And the engine's
 * sources import nothing of protocol-core.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { GitContext } from '../../src/engine/context.js';
import { createPatchCache } from '../../src/engine/diff/patchCache.js';
import { GitError, type GitErrorCode } from '../../src/engine/errors.js';
import { DEFAULT_OBJECT_LIMITS } from '../../src/engine/git/objectLimits.js';
import { createRepoCache } from '../../src/engine/repoCache.js';
import { initRepository, openRepository } from '../../src/engine/repository.js';
import { fixedRoots, givenRoots } from '../../src/engine/roots.js';
import { gitEnv, gitRepo, hasGit, write } from '../helpers.js';

const quiet = { debug() {}, info() {}, warn() {}, error() {} };

function contextFor(roots: string[], allowed = fixedRoots(roots)): GitContext {
  const repoCache = createRepoCache();
  return {
    roots: allowed,
    repoCache,
    remote: undefined,
    env: gitEnv(),
    home: '/nonexistent-home',
    logger: quiet as unknown as GitContext['logger'],
    patchCache: createPatchCache(repoCache.budget),
    objectLimits: DEFAULT_OBJECT_LIMITS,
  };
}

async function codeOf(promise: Promise<unknown>): Promise<GitErrorCode | string> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof GitError) return error.code;
    return `not a GitError: ${String(error)}`;
  }
  return 'no error';
}

describe('openRepository', () => {
  it.skipIf(!hasGit)('returns plain data: status, add, commit, log, branches, diff', async () => {
    using fx = gitRepo();
    const ctx = contextFor([fx.path]);
    const repo = await openRepository(ctx, fx.repo);
    expect(repo.dir).toBe(fx.repo);

    const clean = await repo.status();
    expect(clean).toMatchObject({ branch: 'master', detached: false, merging: false, staged: [], unstaged: [], untracked: [] });
    expect(clean).not.toHaveProperty('content');

    write(fx.repo, { 'a.txt': 'one\n', 'test.txt': 'changed\n' });
    expect((await repo.status()).untracked).toEqual(['a.txt']);
    const unstaged = await repo.diffUnstaged();
    expect(unstaged.files.map((f) => [f.path, f.status])).toEqual([['test.txt', 'modified']]);
    expect(unstaged.page.text).toContain('+changed');

    expect(await repo.add(['a.txt', 'test.txt'])).toEqual({ staged: ['a.txt', 'test.txt'], removed: [] });
    const made = await repo.commit('second\n');
    expect(made.hash).toBe(fx.git('rev-parse', 'HEAD').trim());
    expect(made).toEqual({ hash: made.hash, branch: 'master', parents: [fx.git('rev-parse', 'HEAD~1').trim()] });

    const history = await repo.log({ max_count: 5 });
    expect(history.commits.map((c) => c.message)).toEqual(['second\n', 'initial commit\n']);
    expect(history.next_cursor).toBeUndefined();

    const branches = await repo.branches({ branch_type: 'local' });
    expect(branches?.map((b) => [b.name, b.current, b.commit])).toEqual([['master', true, made.hash]]);
    expect(await repo.branches({ branch_type: 'bogus' })).toBeNull();
  });

  it.skipIf(!hasGit)('refuses with a GitError code', async () => {
    using fx = gitRepo();
    using other = gitRepo();
    const ctx = contextFor([fx.path]);
    expect(await codeOf(openRepository(ctx, other.repo))).toBe('OUTSIDE_ROOTS');
    expect(await codeOf(openRepository(ctx, fx.path))).toBe('NOT_A_REPOSITORY');
    expect(await codeOf(openRepository(ctx, ''))).toBe('INVALID_ARGUMENT');
    expect(await codeOf(openRepository(contextFor([], givenRoots([])), fx.repo))).toBe('NO_ROOTS');

    const repo = await openRepository(ctx, fx.repo);
    expect(await codeOf(repo.checkout('no-such-branch'))).toBe('NOT_FOUND');
    expect(await codeOf(repo.add(['missing.txt']))).toBe('GIT_COMMAND_FAILED');
    expect(await codeOf(repo.add(['../outside.txt']))).toBe('OUTSIDE_ROOTS');
    expect(await codeOf(repo.stash({ action: 'push' }))).toBe('NOTHING_TO_DO');
    expect(await codeOf(repo.createBranch({ branch_name: 'bad..name' }))).toBe('INVALID_ARGUMENT');
    expect(await codeOf(repo.fetch())).toBe('REMOTE');
    const error = await repo.checkout('no-such-branch').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GitError);
    expect((error as GitError).message).toBe("Ref 'no-such-branch' did not resolve to an object");
  });

  it.skipIf(!hasGit)('initRepository makes a repository inside the roots only', async () => {
    using fx = gitRepo();
    const ctx = contextFor([fx.path]);
    const made = await initRepository(ctx, join(fx.path, 'fresh'), 'main');
    expect(made).toEqual({ path: join(fx.path, 'fresh'), git_dir: join(fx.path, 'fresh', '.git'), initial_branch: 'main' });
    expect((await (await openRepository(ctx, made.path)).status()).branch).toBe('main');
    expect(await codeOf(initRepository(ctx, join(fx.path, '..', 'elsewhere')))).toBe('OUTSIDE_ROOTS');
  });
});

describe('show within a limit', () => {
  it.skipIf(!hasGit)('shows a commit within `within`, and refuses one over it (files or bytes) before rendering it', async () => {
    using fx = gitRepo();
    write(fx.repo, { 'a.txt': 'a\n'.repeat(100), 'b.txt': 'b\n', 'c.txt': 'c\n' });
    fx.git('add', '-A');
    fx.git('commit', '-qm', 'three files');
    const repo = await openRepository(contextFor([fx.path]), fx.repo);
    const whole = await repo.show({ revision: 'HEAD' });
    expect(whole.files.map((f) => f.path)).toEqual(['a.txt', 'b.txt', 'c.txt']);
    // Three files of 200 + 2 + 2 bytes (new side; the parent holds none of them), so 3 files and 204 bytes fit.
    expect(await repo.show({ revision: 'HEAD', within: { files: 3, bytes: 204 } })).toEqual(whole);
    const over = async (within: { files: number; bytes: number }) =>
      repo.show({ revision: 'HEAD', within }).then(
        () => 'shown',
        (e: unknown) => (e instanceof GitError ? `${e.code}: ${e.message}` : String(e)),
      );
    const head = fx.git('rev-parse', 'HEAD').trim();
    expect(await over({ files: 2, bytes: 1e6 })).toBe(`LIMIT_EXCEEDED: commit ${head} changes more than 2 files`);
    expect(await over({ files: 3, bytes: 203 })).toBe(`LIMIT_EXCEEDED: commit ${head} changes more than 203 bytes`);
  });
});

describe('cancellation', () => {
  it.skipIf(!hasGit)('a blame whose signal is aborted stops with its reason, and blames as usual otherwise', async () => {
    using fx = gitRepo();
    write(fx.repo, { 'test.txt': 'one\ntwo\n' });
    fx.git('commit', '-qam', 'two lines');
    const repo = await openRepository(contextFor([fx.path]), fx.repo);
    const signal = AbortSignal.abort(new Error('the client cancelled'));
    await expect(repo.blame({ file: 'test.txt', signal })).rejects.toThrow('the client cancelled');
    expect((await repo.blame({ file: 'test.txt', signal: new AbortController().signal })).lines).toHaveLength(2);
  });
});

describe('the engine is a library', () => {
  it('imports nothing from @mcpkit/protocol-core', () => {
    const root = fileURLToPath(new URL('../../src/engine', import.meta.url));
    const offenders: string[] = [];
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) walk(path);
        else if (/\.ts$/.test(entry.name) && /from '@mcpkit\/protocol-core/.test(readFileSync(path, 'utf8'))) offenders.push(path);
      }
    };
    walk(root);
    expect(offenders).toEqual([]);
  });
});
