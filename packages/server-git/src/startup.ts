import { lstat, readdir, realpath, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { ConfigError } from '@mcpkit/protocol-core';

/** True when `dir` holds a `.git` folder with a HEAD, or a `.git` file (a linked worktree or submodule). */
async function isWorkTreeTop(dir: string): Promise<boolean> {
  try {
    const dotGit = await lstat(join(dir, '.git'));
    if (dotGit.isFile()) return true;
    return dotGit.isDirectory() && (await stat(join(dir, '.git', 'HEAD'))).isFile();
  } catch {
    return false;
  }
}

/** The top of the work tree `dir` lies in (like `git rev-parse --show-toplevel`, walking up to a `.git`), or null. */
async function workTreeTop(dir: string): Promise<string | null> {
  for (let current = dir; ; current = dirname(current)) {
    if (await isWorkTreeTop(current)) return current;
    if (dirname(current) === current) return null;
  }
}

/** True when a folder right under `dir` is a work tree: `dir` is a folder of repositories. */
async function holdsRepositories(dir: string): Promise<boolean> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return false;
  }
  for (const name of names) if (name !== '.git' && (await isWorkTreeTop(join(dir, name)))) return true;
  return false;
}

/**
 * `--repository` paths, checked once at start: each must exist and be a folder; the real path is
 * kept (so later checks compare real paths). A folder need not be a repository itself: a folder of
 * repositories allows each of them (and `git_init` inside it, with --allow-init). A folder inside a
 * repository's work tree (`--repository .` started from a subfolder) stands for that repository, as
 * the reference resolves it: its top is served, and `note` says so. A folder of repositories that
 * happens to lie in a work tree (a home folder kept in git) stays what it is: it is not widened to the
 * outer repository.
 */
export async function resolveStartupRepositories(paths: readonly string[], note: (message: string) => void = () => {}): Promise<string[]> {
  const out: string[] = [];
  for (const given of paths) {
    let real: string;
    try {
      real = await realpath(resolve(given));
    } catch {
      throw new ConfigError(`--repository ${given}: no such folder`, '--repository');
    }
    if (!(await stat(real)).isDirectory()) throw new ConfigError(`--repository ${given}: not a folder`, '--repository');
    const top = await workTreeTop(real);
    if (top !== null && top !== real && !(await holdsRepositories(real))) {
      note(`--repository ${given} is inside the repository at ${top}; serving ${top}`);
      real = top;
    }
    if (!out.includes(real)) out.push(real);
  }
  return out;
}
