/** `git_init` (its definition: ../../tools/gitInit.ts). */

/**
 * git_init, back behind --allow-init and confined: the reference removed it (CVE-2025-68143) because
 * it turned any folder (`~/.ssh`) into a repository whose files the other tools could then read.
 * Here the target, or its nearest existing ancestor when it does not exist yet, is resolved with
 * realpath and must lie inside an allowed root; missing folders are created one at a time and
 * checked again, so no symlink can lead the new repository out.
 */
import { lstat, mkdir, realpath, stat } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import git from 'isomorphic-git';
import type { GitContext } from '../context.js';
import { GitError } from '../errors.js';
import { createConfinedFs, isInside } from '../git/confinedFs.js';
import { configValue, userConfigs } from '../git/gitConfig.js';
import { assertBranchName } from '../refs/names.js';

/** Folder names that hold credentials or git internals: never made into (or inside) a repository. */
const SENSITIVE = new Set(['.git', '.ssh', '.gnupg', '.aws', '.azure', '.kube', '.docker', '.password-store', 'gcloud']);

async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch {
    return false;
  }
}

function rootOf(roots: readonly string[], path: string): string | undefined {
  return roots.find((root) => isInside(root, path));
}

function outside(given: string, roots: readonly string[]): GitError {
  const list = roots.length === 1 ? `the allowed root '${roots[0]}'` : `the allowed roots (${roots.map((r) => `'${r}'`).join(', ')})`;
  return new GitError('OUTSIDE_ROOTS', `Refused to initialize a repository at '${given}': it is outside ${list}`);
}

/** The repository made: its work tree, its git dir and its branch. */
export interface InitData {
  path: string;
  git_dir: string;
  initial_branch: string;
}

/** `git init <repo_path>`, confined (see above); `initial_branch` defaults to init.defaultBranch, else master. */
export async function init(ctx: GitContext, repo_path: string, initial_branch: string | null = null): Promise<InitData> {
  if (repo_path.trim() === '') throw new GitError('INVALID_ARGUMENT', 'repo_path is empty: give the folder to create the repository in');
  if (repo_path.includes('\0')) throw new GitError('INVALID_ARGUMENT', 'repo_path contains a NUL character');
  const roots = await ctx.roots.list();
  const branch = initial_branch ?? configValue(userConfigs({ env: ctx.env, home: ctx.home }), 'init.defaultBranch') ?? 'master';
  assertBranchName(branch);

  // The nearest existing ancestor, resolved (symlinks followed); the missing rest appended to it.
  const given = resolve(repo_path);
  let existing = given;
  const missing: string[] = [];
  while (!(await exists(existing))) {
    const up = dirname(existing);
    if (up === existing) break;
    missing.unshift(basename(existing));
    existing = up;
  }
  let base: string;
  try {
    base = await realpath(existing);
  } catch {
    // An existing entry that cannot be resolved: a dangling symlink, or no permission.
    throw new GitError(
      'INVALID_ARGUMENT',
      `Refused to initialize a repository at '${repo_path}': '${existing}' is a broken link or cannot be read`,
    );
  }
  const target = join(base, ...missing);
  const root = rootOf(roots, target);
  if (root === undefined) throw outside(repo_path, roots);
  const inside = relative(root, target).split(sep).filter(Boolean);
  const bad = inside.find((part) => SENSITIVE.has(part.toLowerCase()));
  if (bad !== undefined) {
    throw new GitError('OUTSIDE_ROOTS', `Refused to initialize a repository at '${repo_path}': it is inside a '${bad}' folder`);
  }
  if (missing.length === 0) {
    if (!(await stat(target)).isDirectory())
      throw new GitError('CONFLICT', `Refused to initialize a repository at '${repo_path}': it is not a folder`);
    if (await exists(join(target, '.git'))) {
      throw new GitError(
        'CONFLICT',
        `Refused to initialize a repository at '${repo_path}': it already is a git repository ('${join(target, '.git')}' exists)`,
      );
    }
    if ((await exists(join(target, 'HEAD'))) && (await exists(join(target, 'objects')))) {
      throw new GitError('CONFLICT', `Refused to initialize a repository at '${repo_path}': it already is a (bare) git repository`);
    }
  }

  // Create the missing folders one at a time; each must still resolve to where it was checked.
  let current = base;
  for (const part of missing) {
    current = join(current, part);
    try {
      await mkdir(current);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
        throw new GitError('FAILED', `Error initializing repository: ${(error as Error).message}`);
      }
    }
    const real = await realpath(current);
    if (real !== current || !isInside(root, real)) {
      throw new GitError(
        'OUTSIDE_ROOTS',
        `Refused to initialize a repository at '${repo_path}': '${current}' changed into a link while it was being created`,
      );
    }
  }
  const gitDir = join(target, '.git');
  if (await exists(gitDir))
    throw new GitError('CONFLICT', `Refused to initialize a repository at '${repo_path}': it already is a git repository`);
  try {
    await git.init({ fs: createConfinedFs([target]), dir: target, defaultBranch: branch });
  } catch (error) {
    throw new GitError('FAILED', `Error initializing repository: ${error instanceof Error ? error.message : String(error)}`);
  }
  return { path: target, git_dir: gitDir, initial_branch: branch };
}
