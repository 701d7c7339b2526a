/**
 * git's lockfile protocol (lockfile.c), the one way this server replaces `.git/index` or a ref: create
 * `<file>.lock` with O_CREAT|O_EXCL (whoever creates it owns the file), read the current file while
 * holding it, write the new content fully into the lock, fsync, rename it over the file. Any failure
 * unlinks the lock and leaves the file as it was. A lock held by someone else is waited for, with a
 * bounded backoff, up to a timeout (git's core.filesRefLockTimeout); then the call fails with git's
 * words and changes nothing. A stale lock is never broken: git does not either, the user removes it.
 */
import {
  closeSync,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  openSync,
  readFileSync,
  renameSync,
  type Stats,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { GitError } from '../errors.js';

/** How long to wait for a lock someone else holds, and the clock that wait runs on (tests inject theirs). */
export interface LockWait {
  /** Give up after this many milliseconds (0: one try). */
  timeoutMs: number;
  now: () => number;
  sleep: (ms: number) => Promise<void>;
}

/** The lock file is held by someone else and was not released within the wait. */
class LockHeldError extends GitError {
  constructor(readonly lockPath: string) {
    super(
      'LOCKED',
      `Unable to create '${lockPath}': File exists.\n\nAnother git process seems to be running in this repository, e.g. an editor opened by 'git commit', or another call of this server. Please make sure all processes are terminated then try again. If it still fails, a git process may have crashed in this repository earlier: remove the file manually to continue. Nothing was changed.`,
    );
  }
}

/** A held `<file>.lock`: write the new content, then `commit()` (rename over the file) or `rollback()`. */
export interface LockFile {
  /** The file the lock protects. */
  readonly path: string;
  readonly lockPath: string;
  /** The current content of the protected file (read under the lock); null when it does not exist. */
  readCurrent(): Buffer | null;
  /** Replaces what the lock file holds with `data` (every byte written, or it throws). */
  write(data: Buffer): void;
  /** The lock file's own stat (what the protected file will have after the rename). */
  stat(): Stats;
  /** True once `write` was called. */
  readonly written: boolean;
  /** fsync, close, rename over the file. Unlinks the lock if any step fails. */
  commit(): void;
  /** Drops the lock: the protected file is unchanged. Safe to call twice, or after commit. */
  rollback(): void;
}

/** Writes all of `data` at `position`, looping over short writes; a write that makes no progress throws. */
function writeFully(fd: number, data: Buffer, position: number): void {
  let off = 0;
  while (off < data.length) {
    const n = writeSync(fd, data, off, data.length - off, position + off);
    if (n <= 0) throw Object.assign(new Error('short write: no bytes written'), { code: 'EIO' });
    off += n;
  }
}

function tryCreate(lockPath: string): number | null {
  try {
    return openSync(lockPath, 'wx', 0o666);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return null;
    throw error;
  }
}

/**
 * Takes `<path>.lock`, waiting as `wait` says for one held by someone else (backoff 1, 2, 4 … up to
 * 100 ms between tries, as git's lock_file_timeout does, with some spread so two waiters do not wake
 * together). Throws LockHeldError when the wait is over.
 */
export async function acquireLock(path: string, wait: LockWait): Promise<LockFile> {
  const lockPath = `${path}.lock`;
  const deadline = wait.now() + wait.timeoutMs;
  let backoff = 1;
  let fd = tryCreate(lockPath);
  while (fd === null) {
    const left = deadline - wait.now();
    if (left <= 0) throw new LockHeldError(lockPath);
    await wait.sleep(Math.min(left, backoff + Math.floor(Math.random() * backoff)));
    backoff = Math.min(backoff * 2, 100);
    fd = tryCreate(lockPath);
  }
  return openLock(path, lockPath, fd);
}

function openLock(path: string, lockPath: string, fd: number): LockFile {
  let open = true;
  let done = false;
  let written = false;
  const close = () => {
    if (!open) return;
    open = false;
    closeSync(fd);
  };
  const rollback = () => {
    if (done) return;
    done = true;
    try {
      close();
    } catch {}
    try {
      unlinkSync(lockPath);
    } catch {}
  };
  return {
    path,
    lockPath,
    get written() {
      return written;
    },
    readCurrent() {
      try {
        return readFileSync(path);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw error;
      }
    },
    write(data) {
      if (done) throw new Error(`${lockPath} is no longer held`);
      try {
        writeFully(fd, data, 0);
        // A second write replaces the first: drop what a longer earlier content left behind.
        ftruncateSync(fd, data.length);
        written = true;
      } catch (error) {
        rollback();
        throw error;
      }
    },
    stat() {
      return fstatSync(fd);
    },
    commit() {
      if (done) throw new Error(`${lockPath} is no longer held`);
      try {
        fsyncSync(fd);
        close();
        renameSync(lockPath, path);
        done = true;
      } catch (error) {
        rollback();
        throw error;
      }
    },
    rollback,
  };
}
