/**
 * Stashes in git's own layout, so the git CLI sees the same stack: `refs/stash` points at a commit W
 * (the work tree of tracked files) whose parents are HEAD and I (the index), and `logs/refs/stash`
 * holds one line per entry, newest last. isomorphic-git's `stash` writes a different shape (extra
 * parents that git reads as an untracked-files commit) and cannot take an identity from the
 * environment, so this writes the objects itself.
 */

import git from 'isomorphic-git';
import { GitError } from '../errors.js';
import type { HeldIndex } from '../git/indexLock.js';
import { readCommitInfo } from '../log/commits.js';
import { subject } from '../log/format.js';
import type { Repo } from '../repo.js';
import type { Identity } from './identity.js';
import { blockedPaths } from './inTheWay.js';
import { appendReflog, rewriteReflog, updateRef } from './refLock.js';
import { abbrev, readHead } from './revision.js';
import {
  changedPaths,
  type FlatEntry,
  flatTree,
  indexEntries,
  localChanges,
  workFileEntry,
  writeFlatTree,
  writeWorkFile,
} from './worktree.js';

export interface StashEntry {
  index: number;
  oid: string;
  message: string;
}

const ZERO = '0'.repeat(40);

function reflogPath(repo: Repo): string {
  return `${repo.gitdir}/logs/refs/stash`;
}

/** The stash entries, `stash@{0}` (newest) first. */
export async function listStash(repo: Repo): Promise<StashEntry[]> {
  let text: string;
  try {
    text = await repo.git.fs.promises.readFile(reflogPath(repo), 'utf8');
  } catch {
    return [];
  }
  const lines = text.split('\n').filter((l) => l !== '');
  return lines
    .reverse()
    .map((line, index) => {
      const m = /^[0-9a-f]{40} ([0-9a-f]{40}) [^\t]*\t(.*)$/.exec(line);
      return m ? { index, oid: m[1]!, message: m[2]! } : null;
    })
    .filter((e): e is StashEntry => e !== null);
}

function tz(identity: Identity): string {
  const east = identity.timezoneOffset === 0 ? 0 : -identity.timezoneOffset;
  const abs = Math.abs(east);
  return `${east < 0 ? '-' : '+'}${String(Math.trunc(abs / 60)).padStart(2, '0')}${String(abs % 60).padStart(2, '0')}`;
}

export interface PushResult {
  oid: string;
  message: string;
  paths: string[];
}

/** `git stash push [-m message]` for tracked files: saves index and work tree, then resets them to HEAD. */
export async function stashPush(repo: Repo, held: HeldIndex, identity: Identity, message: string | undefined): Promise<PushResult> {
  const head = await readHead(repo);
  if (head.oid === null) throw new GitError('CONFLICT', 'You do not have the initial commit yet (git stash needs one)');
  const changes = await localChanges(held.repo);
  const paths = [...new Set([...changes.staged, ...changes.unstaged])].sort();
  if (paths.length === 0) throw new GitError('NOTHING_TO_DO', 'No local changes to save');
  const blocked = await blockedPaths(repo, paths);
  if (blocked.length > 0) {
    throw new GitError(
      'CONFLICT',
      `Cannot stash: putting these paths back to HEAD would fail: ${blocked.join(', ')}. Move those files away first. Nothing was saved or changed.`,
    );
  }
  const branch = head.branch ? head.branch.replace(/^refs\/heads\//, '') : '(no branch)';
  const headCommit = await readCommitInfo(repo, head.oid);
  const base = `${await abbrev(repo, head.oid)} ${subject(headCommit.message)}`;

  const index = await indexEntries(repo);
  const indexTree = await writeFlatTree(repo, index);
  const work = new Map(index);
  for (const path of changes.unstaged) {
    const entry = await workFileEntry(repo, path);
    if (entry) work.set(path, entry);
    else work.delete(path);
  }
  const workTree = await writeFlatTree(repo, work);
  const person = { name: identity.name, email: identity.email, timestamp: identity.timestamp, timezoneOffset: identity.timezoneOffset };
  const iCommit = await git.writeCommit({
    ...repo.git,
    commit: { tree: indexTree, parent: [head.oid], author: person, committer: person, message: `index on ${branch}: ${base}\n` },
  });
  const title = message?.trim() ? `On ${branch}: ${message.trim()}` : `WIP on ${branch}: ${base}`;
  const wCommit = await git.writeCommit({
    ...repo.git,
    commit: { tree: workTree, parent: [head.oid, iCommit], author: person, committer: person, message: `${title}\n` },
  });

  // Put index and work tree back to HEAD for those paths, then record the entry (ref + reflog, as git
  // does): if the files cannot be put back, they are restored and no entry is left (the index, written
  // into index.lock, is left as it was by the caller's lock).
  try {
    await git.checkout({ ...held.git, ref: head.oid, filepaths: paths, force: true, noUpdateHead: true });
  } catch (error) {
    await restoreFiles(repo, changes.unstaged, paths, work, index);
    throw error;
  }
  const previous = await currentStash(repo);
  try {
    await updateRef(repo, {
      ref: 'refs/stash',
      value: wCommit,
      expected: previous,
      log: () =>
        appendReflog(
          repo,
          'refs/stash',
          `${previous ?? ZERO} ${wCommit} ${identity.name} <${identity.email}> ${identity.timestamp} ${tz(identity)}\t${title}`,
        ),
    });
  } catch (error) {
    await restoreFiles(repo, changes.unstaged, paths, work, index);
    throw error;
  }
  return { oid: wCommit, message: title, paths };
}

/** Puts the work-tree files of a failed push back as they were (best effort: the push is failing anyway). */
async function restoreFiles(
  repo: Repo,
  unstaged: readonly string[],
  paths: readonly string[],
  work: Map<string, FlatEntry>,
  index: Map<string, FlatEntry>,
): Promise<void> {
  for (const path of unstaged) await writeWorkFile(repo, path, work.get(path) ?? null).catch(() => undefined);
  for (const path of paths) if (!unstaged.includes(path)) await writeWorkFile(repo, path, index.get(path) ?? null).catch(() => undefined);
}

/** What refs/stash holds now (null when there is no stash). */
async function currentStash(repo: Repo): Promise<string | null> {
  try {
    return await git.resolveRef({ ...repo.git, ref: 'refs/stash', depth: 1 });
  } catch {
    return null;
  }
}

export interface PopResult {
  oid: string;
  message: string;
  paths: string[];
}

/**
 * `git stash pop` of stash@{0} when it applies without a merge: the files it changed must be unchanged
 * locally and the same in HEAD as when the stash was made. Otherwise nothing is changed and the
 * error names the files (git would try a three-way merge).
 */
export async function stashPop(repo: Repo, held: HeldIndex): Promise<PopResult> {
  const entries = await listStash(repo);
  const top = entries[0];
  if (!top) throw new GitError('NOTHING_TO_DO', 'No stash entries found.');
  const w = await readCommitInfo(repo, top.oid);
  if (w.parents.length > 2) {
    throw new GitError('UNSUPPORTED', `stash@{0} also holds untracked files (git stash -u); pop it with the git CLI`);
  }
  const [baseOid] = w.parents;
  if (!baseOid) throw new GitError('INVALID_ARGUMENT', `stash@{0} (${top.oid}) is not a stash commit`);
  const head = await readHead(repo);
  if (head.oid === null) throw new GitError('CONFLICT', 'HEAD has no commit yet; cannot apply a stash');
  const stashed = await changedPaths(repo, baseOid, w.tree);
  const moved = head.oid === baseOid ? new Set<string>() : await changedPaths(repo, baseOid, head.oid);
  const changes = await localChanges(held.repo);
  const local = new Set([...changes.staged, ...changes.unstaged]);
  const blocked = [...stashed].filter((p) => local.has(p)).sort();
  if (blocked.length > 0) {
    throw new GitError(
      'CONFLICT',
      `error: Your local changes to the following files would be overwritten by merge:\n\t${blocked.join('\n\t')}\nPlease commit your changes or stash them before you merge.\nAborting\nThe stash entry is kept in case you need it again.`,
    );
  }
  const diverged = [...stashed].filter((p) => moved.has(p)).sort();
  if (diverged.length > 0) {
    throw new GitError(
      'CONFLICT',
      `stash@{0} changes files that also changed in HEAD since the stash was made (${diverged.join(', ')}); ` +
        'this server applies stashes only without a merge. Nothing was changed; the stash entry is kept.',
    );
  }
  const untrackedHit = changes.untracked.filter((p) => stashed.has(p));
  if (untrackedHit.length > 0) {
    throw new GitError(
      'CONFLICT',
      `error: The following untracked working tree files would be overwritten by merge:\n\t${untrackedHit.join('\n\t')}\nThe stash entry is kept.`,
    );
  }
  const blockedPop = await blockedPaths(repo, stashed);
  if (blockedPop.length > 0) {
    throw new GitError(
      'CONFLICT',
      `Cannot apply stash@{0}: ${blockedPop.join(', ')}. Move those files away first. Nothing was changed; the stash entry is kept.`,
    );
  }
  const baseFiles = await flatTree(repo, baseOid);
  const workFiles = await flatTree(repo, w.tree);
  const paths = [...stashed].sort();
  for (const path of paths) await writeWorkFile(repo, path, workFiles.get(path) ?? null);
  // Like `git stash pop` without --index: files new in the stash are staged again, other changes are left unstaged.
  for (const path of paths) {
    if (!baseFiles.has(path) && workFiles.has(path)) await git.add({ ...held.git, filepath: path, force: true });
  }
  await dropTop(repo, entries);
  return { oid: top.oid, message: top.message, paths };
}

/** Drops stash@{0}: refs/stash moves to stash@{1} (or goes, with its reflog), only from stash@{0}. */
async function dropTop(repo: Repo, entries: StashEntry[]): Promise<void> {
  const text = await repo.git.fs.promises.readFile(reflogPath(repo), 'utf8');
  const lines = text.split('\n').filter((l) => l !== '');
  lines.pop();
  const last = lines.length === 0 || entries.length <= 1;
  await updateRef(repo, {
    ref: 'refs/stash',
    value: last ? null : entries[1]!.oid,
    expected: entries[0]!.oid,
    log: () => rewriteReflog(repo, 'refs/stash', last ? [] : lines),
  });
}
