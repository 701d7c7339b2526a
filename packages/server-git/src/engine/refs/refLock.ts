/**
 * Moving a ref as git does (refs/files-backend.c): take `<ref>.lock` (lockFile.ts), read the ref under
 * it, compare with the value the caller based its change on (compare-and-swap: a ref moved meanwhile
 * fails the update and nothing changes), write the new value into the lock, append the reflog lines,
 * rename. Deleting a ref also removes it from packed-refs, under `packed-refs.lock`. Callers hold the
 * repository's write turn (repoWrites.ts) and pass full, checked ref names (HEAD or refs/…).
 */
import { appendFileSync, mkdirSync, readFileSync, rmSync, unlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { GitError } from '../errors.js';
import { acquireLock, type LockFile } from '../git/lockFile.js';
import type { Repo } from '../repo.js';

/** The ref's value as stored: an object id, or `ref: <target>` for a symbolic ref; null when it does not exist. */
function readStored(repo: Repo, ref: string, lock: LockFile): string | null {
  const loose = lock.readCurrent();
  if (loose !== null) return loose.toString('utf8').trim();
  if (ref === 'HEAD') return null;
  let packed: string;
  try {
    packed = readFileSync(join(repo.commondir, 'packed-refs'), 'utf8');
  } catch {
    return null;
  }
  for (const line of packed.split('\n')) {
    if (line.length > 41 && line.charCodeAt(40) === 32 && line.slice(41) === ref) return line.slice(0, 40);
  }
  return null;
}

function assertRefPath(ref: string): void {
  if (ref !== 'HEAD' && !/^refs\/(?!.*(?:^|\/)\.)(?!.*\.\.)[^\0\\]+$/.test(ref)) {
    throw new GitError('INVALID_ARGUMENT', `'${ref}' is not a ref name this server writes`);
  }
}

export interface RefUpdate {
  /** Full name: `HEAD`, `refs/heads/main`, `refs/tags/v1`, `refs/stash`. */
  ref: string;
  /** An object id, `ref: refs/heads/x` for a symbolic ref, or null to delete the ref. */
  value: string | null;
  /** What the ref must hold now (as stored, see readStored), null for "must not exist"; undefined skips the check. */
  expected?: string | null | undefined;
  /** Run under the ref's lock, after the check and before the rename (reflog lines); a throw cancels the update. */
  log?: (() => void | Promise<void>) | undefined;
}

function described(value: string | null): string {
  return value === null ? 'missing' : value.replace(/^ref: /, '');
}

/** Applies one ref update under its lock (see the file's comment); throws a GitError and changes nothing when it cannot. */
export async function updateRef(repo: Repo, update: RefUpdate): Promise<void> {
  assertRefPath(update.ref);
  const file = join(repo.gitdir, update.ref);
  mkdirSync(dirname(file), { recursive: true });
  const lock = await acquireLock(file, repo.writes.ref);
  try {
    const current = readStored(repo, update.ref, lock);
    if (update.expected !== undefined && current !== update.expected) {
      throw new GitError(
        'CONFLICT',
        `cannot lock ref '${update.ref}': is at ${described(current)} but expected ${described(update.expected)}. It was changed by someone else meanwhile; nothing was changed.`,
      );
    }
    if (update.value === null) {
      await update.log?.();
      await removePacked(repo, update.ref);
      try {
        unlinkSync(file);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
      lock.rollback();
      return;
    }
    lock.write(Buffer.from(`${update.value}\n`));
    await update.log?.();
    lock.commit();
  } catch (error) {
    lock.rollback();
    throw error;
  }
}

/** Drops `ref` (and its peeled line) from packed-refs, under packed-refs.lock, when it is there. */
async function removePacked(repo: Repo, ref: string): Promise<void> {
  const file = join(repo.commondir, 'packed-refs');
  const lock = await acquireLock(file, repo.writes.ref);
  try {
    const text = lock.readCurrent()?.toString('utf8');
    if (text === undefined) return lock.rollback();
    const lines = text.split('\n');
    const kept: string[] = [];
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i]!;
      if (line.length > 41 && line.slice(41) === ref && line.charCodeAt(40) === 32) {
        if (lines[i + 1]?.startsWith('^')) i++;
        continue;
      }
      kept.push(line);
    }
    if (kept.length === lines.length) return lock.rollback();
    lock.write(Buffer.from(kept.join('\n')));
    lock.commit();
  } catch (error) {
    lock.rollback();
    throw error;
  }
}

/** Appends a reflog line `<old> <new> <who>\t<message>` to `logs/<ref>` (git's format; folders created). */
export function appendReflog(repo: Repo, ref: string, line: string): void {
  const file = join(repo.gitdir, 'logs', ref);
  mkdirSync(dirname(file), { recursive: true });
  appendFileSync(file, line.endsWith('\n') ? line : `${line}\n`);
}

/** Replaces a whole reflog (`logs/<ref>`) through its lock file; `lines` empty removes it. Call under the ref's lock. */
export async function rewriteReflog(repo: Repo, ref: string, lines: readonly string[]): Promise<void> {
  const file = join(repo.gitdir, 'logs', ref);
  const lock = await acquireLock(file, repo.writes.ref);
  try {
    if (lines.length === 0) {
      rmSync(file, { force: true });
      lock.rollback();
      return;
    }
    lock.write(Buffer.from(`${lines.join('\n')}\n`));
    lock.commit();
  } catch (error) {
    lock.rollback();
    throw error;
  }
}

/** Runs `fn` in this process's write turn for the repository (ref-only writers: branch and tag creation). */
export function withRefWrites<T>(repo: Repo, fn: () => Promise<T>): Promise<T> {
  return repo.writes.exclusive(repo.gitdir, fn);
}
