/**
 * Test fixtures: real repositories made with the git CLI in temp folders (fixed identity and dates,
 * no user or system config), and a real SDK client against createGitServer.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { connectInMemory, type InMemoryClientOptions } from '@mcpkit/protocol-core/testing';
import { expect } from 'vitest';
import { createGitServer, type GitServerOptions } from '../src/server.js';

/**
 * True when a git binary is on PATH; tests that compare with the git CLI are skipped without one on a
 * developer's machine. Under CI (`CI` set) a missing git fails every test file that imports this, never skips.
 */
export const hasGit = spawnSync('git', ['--version']).status === 0;
if (!hasGit && process.env.CI) {
  throw new Error('CI is set but no git binary is on PATH: the git CLI comparisons must run in CI (install git)');
}

/** The environment every fixture git command runs with: no user/system config, fixed identity and clock. */
export function gitEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: '/nonexistent-home',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_AUTHOR_NAME: 'Test User',
    GIT_AUTHOR_EMAIL: 'test@example.com',
    GIT_COMMITTER_NAME: 'Test User',
    GIT_COMMITTER_EMAIL: 'test@example.com',
    GIT_AUTHOR_DATE: '2024-01-15T14:30:25+01:00',
    GIT_COMMITTER_DATE: '2024-01-15T14:30:25+01:00',
    LANG: 'C',
    LC_ALL: 'C',
    TZ: 'UTC',
    ...extra,
  };
}

/** Runs git in `cwd` and returns stdout (throws with stderr on failure). */
export function git(cwd: string, args: string[], env: Record<string, string> = {}): string {
  return execFileSync('git', args, { cwd, env: gitEnv(env), encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

export interface TempDir extends Disposable {
  path: string;
}

/** A real, empty temp folder (real path, so /tmp symlinks do not matter), removed on dispose. */
export function tempDir(prefix = 'mcpkit-git-'): TempDir {
  const path = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  return { path, [Symbol.dispose]: () => rmSync(path, { recursive: true, force: true }) };
}

/** Writes files (creating folders) under `dir`: `{ 'a/b.txt': 'text' }`. */
export function write(dir: string, files: Record<string, string | Buffer>): void {
  for (const [name, content] of Object.entries(files)) {
    const file = join(dir, name);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, content);
  }
}

export interface RepoFixture extends TempDir {
  /** The work tree (inside `root`, which is the allowed folder). */
  repo: string;
  /** Runs git in the repository. */
  git(...args: string[]): string;
}

/**
 * A temp folder holding `repo/`, a repository with `test.txt` = "test" committed as "initial commit"
 * on `master` (the reference suite's fixture). `root` is the temp folder.
 */
export function gitRepo({ initial = true }: { initial?: boolean } = {}): RepoFixture {
  const dir = tempDir();
  const repo = join(dir.path, 'repo');
  mkdirSync(repo);
  git(repo, ['init', '-q', '-b', 'master']);
  if (initial) {
    write(repo, { 'test.txt': 'test' });
    git(repo, ['add', 'test.txt']);
    git(repo, ['commit', '-q', '-m', 'initial commit']);
  }
  return { ...dir, repo, git: (...args: string[]) => git(repo, args), [Symbol.dispose]: dir[Symbol.dispose] };
}

/** A real SDK client against a fresh server allowed `repositories` (test env: fixed identity, no home config). */
export async function connect(options: GitServerOptions = {}, client?: InMemoryClientOptions) {
  return connectInMemory(createGitServer({ env: gitEnv(), home: '/nonexistent-home', ...options }), client);
}

type Content = { type: string; text?: string }[];

/** The text of a tool result's first content block. */
export function text(result: unknown): string {
  return ((result as { content?: Content }).content?.[0]?.text ?? '') as string;
}

/**
 * The hono history bundle (a real repository, vendored in `tooling/git-fixtures` with its licence), or the one
 * MCPKIT_HONO_BUNDLE names. Without it the tests that need it are skipped on a developer's machine; under CI
 * (`CI` set) a missing bundle fails the run.
 */
export const honoBundle: string | undefined = [
  process.env.MCPKIT_HONO_BUNDLE,
  fileURLToPath(new URL('../../../tooling/git-fixtures/hono.bundle', import.meta.url)),
].find((p): p is string => p !== undefined && existsSync(p));
if (honoBundle === undefined && process.env.CI) {
  throw new Error('CI is set but tooling/git-fixtures/hono.bundle is missing: the tests on real history must run in CI');
}

/**
 * Branch `other` writes `theirs`, `master` writes `ours` (both committed), then `git merge other` on
 * master stops with conflicts: the index holds stages 1-3 and MERGE_HEAD is set.
 */
export function conflictedMerge(fx: RepoFixture, ours: Record<string, string>, theirs: Record<string, string>): void {
  fx.git('checkout', '-q', '-b', 'other');
  write(fx.repo, theirs);
  fx.git('add', '.');
  fx.git('commit', '-q', '-m', 'other');
  fx.git('checkout', '-q', 'master');
  write(fx.repo, ours);
  fx.git('add', '.');
  fx.git('commit', '-q', '-m', 'master');
  let conflicted = false;
  try {
    fx.git('merge', '-q', 'other');
  } catch {
    conflicted = true;
  }
  if (!conflicted) throw new Error('git merge did not stop with a conflict');
}

/** What a client sees of a bin started on `-r repo` (`repo` a fresh gitRepo()): the tools, and the reference texts of git_status and git_log. */
export async function expectServesReferenceTexts(
  client: {
    listTools(): Promise<{ tools: { name: string }[] }>;
    callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
  },
  repo: string,
): Promise<void> {
  const { tools } = await client.listTools();
  expect(tools.map((t) => t.name)).toContain('git_status');
  expect(tools.map((t) => t.name)).not.toContain('git_init');
  const status = await client.callTool({ name: 'git_status', arguments: { repo_path: repo } });
  expect(text(status)).toBe('Repository status:\nOn branch master\nnothing to commit, working tree clean');
  const log = await client.callTool({ name: 'git_log', arguments: { repo_path: repo, max_count: 1 } });
  expect(text(log)).toMatch(/^Commit history:\nCommit: '[0-9a-f]{40}'\nAuthor: <git.Actor "Test User <test@example.com>">\n/);
}
