/**
 * A cross-process lock file (`<memory file>.lock`), taken and released synchronously so that a whole
 * read-modify-write runs in one synchronous stretch: nothing else in this process can interleave,
 * and the holder never needs to refresh the lock while it works.
 *
 * Taking it is one `open(O_CREAT|O_EXCL)` writing `{pid, host, since}`. A lock whose owner is a dead
 * process on this host is taken over at once (a server killed with SIGKILL mid-write); a lock from
 * another host, or whose owner cannot be checked, after `staleMs`.
 *
 * Why not `proper-lockfile`: it is asynchronous (four thread-pool round trips per lock and unlock,
 * 1-2 ms on a busy machine, more than the whole write it protects) and keeps a lock alive with
 * timers that cannot fire during a synchronous write; it also waits `stale` (≥ 2 s) after a crash.
 */
import { closeSync, fstatSync, linkSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';

export interface FileLockOptions {
  /** A lock this old is taken over when its owner cannot be checked. */
  staleMs: number;
  /** Give up waiting after this long. */
  timeoutMs: number;
}

interface Owner {
  pid?: number;
  host?: string;
}

const HOST = hostname();

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class LockTimeoutError extends Error {
  override readonly name = 'LockTimeoutError';
}

export class FileLock {
  /** Inode of the lock file we created, while we hold it. */
  private held: number | bigint | null = null;

  constructor(
    readonly path: string,
    private readonly options: FileLockOptions,
  ) {}

  /** Takes the lock if it is free (or stale) right now. */
  tryAcquire(): boolean {
    for (let attempt = 0; attempt < 3; attempt++) {
      let fd: number;
      try {
        fd = openSync(this.path, 'wx', 0o600);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        if (!this.removeIfStale()) return false;
        continue;
      }
      try {
        writeSync(fd, JSON.stringify({ pid: process.pid, host: HOST, since: new Date().toISOString() }));
        this.held = fstatSync(fd).ino;
      } finally {
        closeSync(fd);
      }
      return true;
    }
    return false;
  }

  /** Waits (with a short randomised back-off) until the lock is ours. */
  async acquire(): Promise<void> {
    const deadline = Date.now() + this.options.timeoutMs;
    let wait = 1;
    while (!this.tryAcquire()) {
      if (Date.now() > deadline) throw new LockTimeoutError(`${this.path} is held by another process`);
      await sleep(wait * (1 + Math.random()));
      wait = Math.min(wait * 1.5, 25);
    }
  }

  /** Releases the lock if the file is still the one we created. */
  release(): void {
    if (this.held === null) return;
    const ino = this.held;
    this.held = null;
    try {
      if (statSync(this.path).ino === ino) unlinkSync(this.path);
    } catch {
      // Already gone (taken over as stale): nothing to release.
    }
  }

  /** Removes the lock file when its owner is gone; true when the caller should try again. */
  private removeIfStale(): boolean {
    let st: ReturnType<typeof statSync>;
    let owner: Owner = {};
    try {
      st = statSync(this.path);
      owner = JSON.parse(readFileSync(this.path, 'utf8')) as Owner;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return true; // released meanwhile
      // Unreadable or half-written (owner killed between create and write): judge by age below.
      try {
        st = statSync(this.path);
      } catch {
        return true;
      }
    }
    // Another process on this host can be checked; a live one keeps its lock however old it is.
    const checkable = owner.host === HOST && typeof owner.pid === 'number' && owner.pid !== process.pid;
    const ownerAlive = checkable && alive(owner.pid!);
    const dead = checkable && !ownerAlive;
    const old = !ownerAlive && Date.now() - st.mtimeMs > this.options.staleMs;
    if (!dead && !old) return false;
    // Move it aside first and check it is the file we judged, so two processes never both take over.
    const aside = `${this.path}.${process.pid}.${Math.random().toString(36).slice(2)}.stale`;
    try {
      renameSync(this.path, aside);
    } catch {
      return true;
    }
    try {
      if (statSync(aside).ino !== st.ino) {
        // Someone took over and re-created the lock between our check and the rename: put theirs
        // back (link fails if yet another lock appeared; never replace one).
        try {
          linkSync(aside, this.path);
        } catch {}
        unlinkSync(aside);
        return false;
      }
      unlinkSync(aside);
    } catch {}
    return true;
  }
}
