/**
 * Changing `.git/index` as git does: in this process after the writers before (repoWrites.ts), across
 * processes under `index.lock` (lockFile.ts), with the index read UNDER the lock — so a change staged
 * by a concurrent call is never overwritten by one computed from an older index. The new index is
 * written into the lock and renamed over the index when the change succeeds; any failure drops the
 * lock and leaves the index as it was.
 *
 * isomorphic-git writes the index in place, with no cross-process lock. Its calls that change the
 * index run inside the held lock with `held.git`: the same confined fs, except that the index is
 * written into `index.lock` (and read back from it once written), and a cache whose index entry is
 * this call's own (packs stay shared), so an index that was never committed is never seen later.
 * Its work-tree walks (statusMatrix) write the index too (refreshed stat data): under the lock they
 * run with `held.repo`, so that write also goes into the lock.
 */
import { statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Repo } from '../repo.js';
import { assertWritableIndex, type IndexEntry, type ParsedIndex, parseIndex, serializeIndex } from './indexFile.js';
import { type IndexSnapshot, snapshotOf } from './indexSnapshot.js';
import { acquireLock, type LockFile } from './lockFile.js';

export interface HeldIndex {
  /** The index as it is now, read under the lock. */
  readonly index: IndexSnapshot;
  /** The new index (entries are sorted here); committed when the call's function returns. */
  write(entries: readonly IndexEntry[]): void;
  /** isomorphic-git's arguments with the index redirected into the lock (see above). */
  readonly git: Repo['git'];
  /** The repository with those arguments: for helpers that call isomorphic-git (its work-tree walks refresh the index's stat data, a write). */
  readonly repo: Repo;
}

function readUnderLock(lock: LockFile): ParsedIndex {
  const buf = lock.readCurrent();
  if (buf === null) return { version: 2, entries: [], extensions: [], mtimeMs: 0 };
  let mtimeMs = 0;
  try {
    mtimeMs = statSync(lock.path).mtimeMs;
  } catch {}
  return parseIndex(buf, mtimeMs);
}

/** isomorphic-git's cache for a call under the lock: its own index entry, the shared pack caches. */
function callCache(shared: object): object {
  const out: Record<symbol, unknown> = {};
  for (const key of Object.getOwnPropertySymbols(shared)) {
    if (key.description !== 'IndexCache') out[key] = (shared as Record<symbol, unknown>)[key];
  }
  return out;
}

function redirectedGit(repo: Repo, lock: LockFile): Repo['git'] {
  const real = repo.git.fs.promises as unknown as Record<string, (...args: never[]) => Promise<unknown>>;
  const isIndex = (file: unknown) => typeof file === 'string' && resolve(file) === lock.path;
  const promises: Record<string, unknown> = { ...real };
  promises.writeFile = async (file: string, data: string | Uint8Array, ...rest: unknown[]) => {
    if (!isIndex(file)) return (real.writeFile as (...a: unknown[]) => Promise<unknown>)(file, data, ...rest);
    lock.write(typeof data === 'string' ? Buffer.from(data) : Buffer.from(data.buffer, data.byteOffset, data.byteLength));
  };
  promises.readFile = async (file: string, ...rest: unknown[]) =>
    (real.readFile as (...a: unknown[]) => Promise<unknown>)(isIndex(file) && lock.written ? lock.lockPath : file, ...rest);
  for (const op of ['stat', 'lstat'] as const) {
    promises[op] = async (file: string, ...rest: unknown[]) =>
      isIndex(file) && lock.written ? lock.stat() : (real[op] as (...a: unknown[]) => Promise<unknown>)(file, ...rest);
  }
  return { ...repo.git, fs: { promises: promises as never }, cache: callCache(repo.git.cache) };
}

/**
 * Runs `fn` holding the index: waits for this process's earlier writers, then for `index.lock` (up to
 * the configured timeout, then a LockHeldError and nothing changed). What `fn` wrote is committed
 * when it returns; when it throws, the index is left as it was.
 */
export function withIndexLock<T>(repo: Repo, fn: (held: HeldIndex) => Promise<T>): Promise<T> {
  return repo.writes.exclusive(repo.gitdir, async () => {
    const lock = await acquireLock(join(repo.gitdir, 'index'), repo.writes.index);
    try {
      const parsed = readUnderLock(lock);
      const git = redirectedGit(repo, lock);
      const held: HeldIndex = {
        index: snapshotOf(parsed),
        write(entries) {
          assertWritableIndex(parsed);
          lock.write(serializeIndex(entries));
        },
        git,
        repo: { ...repo, git },
      };
      const result = await fn(held);
      if (lock.written) lock.commit();
      else lock.rollback();
      return result;
    } catch (error) {
      lock.rollback();
      throw error;
    }
  });
}
