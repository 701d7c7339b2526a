/**
 * Revisions looked up as data, never parsed as options: `HEAD`, a ref name (git's lookup order:
 * `<name>`, `refs/<name>`, `refs/tags/`, `refs/heads/`, `refs/remotes/`, `refs/remotes/<name>/HEAD`),
 * a full or abbreviated object id, each optionally followed by `~N`, `^N`, `^{}` or `^{commit}`.
 */

import git from 'isomorphic-git';
import { resolveObject } from '../diff/rev.js';
import { GitError } from '../errors.js';
import { isObjectStoreError } from '../git/objectLimits.js';
import { readObjectParsed } from '../git/objectRead.js';
import type { Repo } from '../repo.js';
import { refNameProblem } from './names.js';

export interface Resolved {
  /** The commit (tags peeled). */
  oid: string;
  /** The full ref name when the revision was exactly a ref (`refs/heads/main`), else undefined. */
  ref?: string;
}

async function isNotFound(error: unknown): Promise<boolean> {
  const code = (error as { code?: string } | null)?.code;
  return code === 'NotFoundError' || code === 'ENOENT';
}

/** An object id peeled through annotated tags to a commit; null when it is something else. */
export async function peelToCommit(repo: Repo, oid: string): Promise<string | null> {
  let current = oid;
  for (let depth = 0; depth < 16; depth++) {
    const { type, object } = await readObjectParsed(repo, current);
    if (type === 'commit') return current;
    if (type !== 'tag') return null;
    current = (object as { object: string }).object;
  }
  return null;
}

/** The oid and full name of a ref name (git's DWIM order), or null. */
async function resolveRefName(repo: Repo, name: string): Promise<{ oid: string; ref: string } | null> {
  if (name !== 'HEAD' && refNameProblem(name) !== null) return null;
  try {
    const ref = name === 'HEAD' ? 'HEAD' : await git.expandRef({ ...repo.git, ref: name });
    const oid = await git.resolveRef({ ...repo.git, ref });
    return { oid, ref };
  } catch (error) {
    if (await isNotFound(error)) return null;
    throw error;
  }
}

/**
 * A revision → its commit, or null when it does not resolve to one (GitPython's `rev_parse` then
 * raises `BadName`). `ref` is set when the revision was a plain ref name. The lookup itself is
 * ../diff/rev.ts's (refs in git's order, object ids, `~N`, `^N`, `^{…}`).
 */
export async function resolveRevision(repo: Repo, revision: string): Promise<Resolved | null> {
  let oid: string;
  try {
    oid = await resolveObject(repo, revision, { kind: 'commit' });
  } catch (error) {
    if (error instanceof GitError && !isObjectStoreError(error)) return null;
    throw error;
  }
  if (/[~^]/.test(revision) || /^[0-9a-f]{40}$/.test(revision)) return { oid };
  const named = await resolveRefName(repo, revision === '' || revision === '@' ? 'HEAD' : revision);
  return named ? { oid, ref: named.ref } : { oid };
}

/** HEAD: the branch it names (full ref, or null when detached) and its commit (null on an unborn branch). */
export async function readHead(repo: Repo): Promise<{ branch: string | null; oid: string | null }> {
  const target = await git.resolveRef({ ...repo.git, ref: 'HEAD', depth: 2 });
  const branch = target.startsWith('refs/') ? target : null;
  let oid: string | null = branch === null ? target : null;
  if (branch !== null) {
    try {
      oid = await git.resolveRef({ ...repo.git, ref: branch });
    } catch {
      oid = null;
    }
  }
  return { branch, oid };
}

/** The abbreviation git prints (its default length for the repository's size, longer while ambiguous). */
export { abbreviate as abbrev } from '../git/abbrev.js';
