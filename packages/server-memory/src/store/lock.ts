/**
 * A cross-process lock file (`<memory file>.lock`), taken and released synchronously so that a whole
 * read-modify-write runs in one synchronous stretch: nothing else in this process can interleave,
 * and the holder never needs to refresh the lock while it works.
 *
 * The lock file holds `{pid, host, since, id}`. `id` tells the writer apart from a later process
 * that got the same pid (a pid reused after a crash or a reboot): on Linux the boot id and the
 * process's start time (field 22 of `/proc/<pid>/stat`).
 *
 * Taking it is one `link()`: each `FileLock` writes its owner record once, into a file of its own
 * beside the lock (`<lock>.<16 hex>.owner`), and takes the lock by linking that file to the lock's
 * name (atomic and exclusive, on NFS too), after touching its mtime (the lock's age). Releasing is
 * one `unlink`. Creating and writing a new file each time would add an inode and a data block to
 * every journal commit of the filesystem: a third more on each mutation's `fdatasync`. Where hard
 * links are not supported (FAT, some network shares) it falls back to `open(O_CREAT|O_EXCL)` and a
 * write. Either way the lock file reads the same, and earlier versions judge it as before. Owner
 * files are removed on `dispose()`, and those of processes that are gone by the next holder.
 * A holder that keeps the lock across a pause checks it is still its own before using it again
 * (`stillHeld`: one `statx`, the inode and ctime it had when taken).
 *
 * Someone else's lock on this host is taken over at once when its owner is gone:
 *
 * - no process has its pid;
 * - the process with its pid is another one: its identity differs from `id`, or, for a lock without
 *   `id` (written by an earlier version, or on a platform without one), it started after the lock was written;
 * - or, for such a lock that is `staleMs` old, the live process that started before it cannot be a memory
 *   server at all: its command line (`processInfo.ts`) is not a JavaScript runtime and does not mention
 *   `memory` (init, pid 1, after a reboot). One that could be is treated as the owner (an older server may be
 *   mid-write: taking its lock could lose that write), however old the lock.
 *
 * Only a lock whose `id` matches the live process proves who owns it: only then does the time-out message
 * suggest stopping that process (`lockTimeoutText`); otherwise it says to remove the stale lock file.
 *
 * A start time comes from `/proc` on Linux and from `ps -o etime=` elsewhere (macOS, BSD), asked
 * only about a lock held for over a second and once per lock file, since a lock is normally held for
 * milliseconds. A lock whose owner cannot be checked (another host, an unreadable lock, a live
 * process whose start time is unknown, as on Windows) is taken over once it is `staleMs` old.
 *
 * Why not `proper-lockfile`: it is asynchronous (four thread-pool round trips per lock and unlock,
 * 1-2 ms on a busy machine, more than the whole write it protects) and keeps a lock alive with
 * timers that cannot fire during a synchronous write; it also waits `stale` (≥ 2 s) after a crash.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, fstatSync, futimesSync, linkSync, openSync, readFileSync, renameSync, statSync, unlinkSync } from 'node:fs';
import { removeQuietly, siblingsOf, writeAll } from './durable.js';
import { type LockClock, systemLockClock } from './lockClock.js';
import { describeOwner, HOST, type LockOwner, LockTimeoutError, parseLockOwner } from './lockOwner.js';
import { alive, commandLine, linuxStart, mayBeMemoryServer, type ProcessStart, psStart, readText } from './processInfo.js';

export { type LockOwner, LockTimeoutError, lockTimeoutText } from './lockOwner.js';
export { type ProcessStart, processStart } from './processInfo.js';

export interface FileLockOptions {
  /** A lock this old is taken over when its owner cannot be checked. */
  staleMs: number;
  /** Give up waiting after this long. */
  timeoutMs: number;
  /** How to learn a process's start time; tests pass another platform to exercise its path. Default `process.platform`. */
  platform?: NodeJS.Platform;
  /** What `acquire` waits on: its deadline and the back-off between tries. Default `systemLockClock`. */
  clock?: LockClock;
}

/** A process that started this long after a lock was written cannot have written it (start times are this coarse). */
const START_SLACK_MS = 2000;
/** `ps` is a process spawn: only asked about a lock held at least this long. */
const PS_AFTER_MS = 1000;

const stamp = (st: { ino: bigint; ctimeNs: bigint }) => ({ ino: st.ino, ctimeNs: st.ctimeNs });

/** `held`: the process the lock names may be its owner; `owner`: it is, proven by the lock's `id`. */
type Verdict = 'gone' | 'held' | 'owner' | 'unknown';

/** `link()` failed for a reason that means the filesystem has no hard links: use `open(O_EXCL)` instead. */
const NO_HARD_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EXDEV', 'EMLINK']);
const OWNER_FILE = /\.[0-9a-f]{16}\.owner$/;

export class FileLock {
  /** The lock file we created (its inode, and its ctime once taken), while we hold it. */
  private held: { ino: bigint; ctimeNs: bigint } | null = null;
  private readonly platform: NodeJS.Platform;
  private readonly clock: LockClock;
  /** This process, as written into the lock and as compared with a lock naming our pid. */
  private readonly self: ProcessStart;
  /** The last `ps` answers, per lock file, so a long-held lock costs one spawn for each. */
  private psAnswer: { key: string; start: ProcessStart | null } | undefined;
  private psCommand: { key: string; args: string[] | null } | undefined;
  /** The verdict on the lock when it was last found taken (for the message after a time-out). */
  private lastVerdict: Verdict = 'unknown';
  /** Our owner file (linked to `path` to take the lock), once written; `false`: no hard links here. */
  private owner: { path: string; fd: number } | null | false = null;
  private swept = false;
  private disposed = false;

  constructor(
    readonly path: string,
    private readonly options: FileLockOptions,
  ) {
    this.platform = options.platform ?? process.platform;
    this.clock = options.clock ?? systemLockClock;
    const linux = this.platform === 'linux' ? linuxStart(process.pid) : null;
    this.self = linux ?? { at: performance.timeOrigin };
  }

  /** Takes the lock if it is free (or stale) right now. */
  tryAcquire(): boolean {
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        this.held = this.take();
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        if (!this.removeIfStale()) return false;
        continue;
      }
      if (!this.swept) this.sweepOwnerFiles();
      return true;
    }
    return false;
  }

  /** Creates the lock file (throws `EEXIST` when there is one); returns its inode and ctime. */
  private take(): { ino: bigint; ctimeNs: bigint } {
    const owner = this.ownerFile();
    if (owner) {
      // The lock's age is its mtime: now.
      const now = new Date();
      futimesSync(owner.fd, now, now);
      try {
        linkSync(owner.path, this.path);
        return stamp(fstatSync(owner.fd, { bigint: true }));
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code ?? '';
        if (code === 'ENOENT') {
          // Our owner file was removed (a temp-folder cleaner): write it again next time.
          this.dropOwnerFile();
          return this.take();
        }
        if (!NO_HARD_LINKS.has(code)) throw error;
        this.dropOwnerFile();
        this.owner = false;
      }
    }
    const fd = openSync(this.path, 'wx', 0o600);
    try {
      writeAll(fd, this.ownerRecord());
      return stamp(fstatSync(fd, { bigint: true }));
    } catch (error) {
      // A lock file we could not write whole (a full disk) is not left to block everyone until it is stale.
      removeQuietly(this.path);
      throw error;
    } finally {
      closeSync(fd);
    }
  }

  private ownerRecord(): string {
    return JSON.stringify({ pid: process.pid, host: HOST, since: new Date().toISOString(), ...(this.self.id ? { id: this.self.id } : {}) });
  }

  /** Our owner file, written on first use (null when hard links are not used here). */
  private ownerFile(): { path: string; fd: number } | null {
    if (this.owner === false || this.disposed) return null;
    if (this.owner) return this.owner;
    const path = `${this.path}.${randomBytes(8).toString('hex')}.owner`;
    const fd = openSync(path, 'wx+', 0o600);
    try {
      writeAll(fd, this.ownerRecord());
      this.owner = { path, fd };
    } catch (error) {
      closeSync(fd);
      removeQuietly(path);
      throw error;
    }
    return this.owner;
  }

  private dropOwnerFile(): void {
    if (!this.owner) return;
    const { path, fd } = this.owner;
    this.owner = null;
    closeSync(fd);
    try {
      unlinkSync(path);
    } catch {}
  }

  /**
   * Removes the owner files of processes that are gone (killed without `dispose()`), once per lock,
   * while holding it. A file that is linked (the lock, or being taken) or whose owner cannot be
   * checked is left alone.
   */
  private sweepOwnerFiles(): void {
    this.swept = true;
    for (const path of siblingsOf(this.path, OWNER_FILE)) {
      if (this.owner && path === this.owner.path) continue;
      try {
        const st = statSync(path);
        if (st.nlink !== 1) continue;
        if (this.judge(parseLockOwner(readFileSync(path, 'utf8')), st) === 'gone') unlinkSync(path);
      } catch {}
    }
  }

  /** Releases the lock if held, and removes our owner file. */
  dispose(): void {
    this.disposed = true;
    this.release();
    this.dropOwnerFile();
  }

  /** Waits (with a short randomised back-off) until the lock is ours, until `deadline` (on the clock; default: `timeoutMs` from now). */
  async acquire(deadline = this.clock.now() + this.options.timeoutMs): Promise<void> {
    const { clock } = this;
    const started = clock.now();
    let wait = 1;
    while (!this.tryAcquire()) {
      if (clock.now() > deadline) throw new LockTimeoutError(this.path, this.holder(), clock.now() - started, this.lastVerdict === 'owner');
      await clock.sleep(wait * (1 + Math.random()));
      wait = Math.min(wait * 1.5, 25);
    }
  }

  /** Who holds the lock now, for messages (`process 123 since …`, `nobody`). */
  holder(): string {
    const text = readText(this.path);
    if (text === null) return 'nobody';
    try {
      const owner = parseLockOwner(text);
      // A lock taken by linking an owner file was taken when its mtime says, not when the file was written.
      const st = statSync(this.path, { throwIfNoEntry: false });
      return describeOwner(st && st.nlink > 1 ? { ...owner, since: st.mtimeMs } : owner);
    } catch {
      return 'an unknown process (the lock file is not readable)';
    }
  }

  /**
   * Whether the lock taken earlier is still ours, before using it again after a pause (`exclusive.ts`
   * keeps it across a burst): the file at `path` is the one we created and nobody changed it since (its
   * ctime), or it still names this process. One `statx` when it is untouched. When it is not ours any
   * more (taken over, replaced), it is forgotten without removing anything: take it again to use it.
   */
  stillHeld(): boolean {
    const held = this.held;
    if (held === null) return false;
    const st = statSync(this.path, { bigint: true, throwIfNoEntry: false });
    if (st?.ino === held.ino) {
      if (st.ctimeNs === held.ctimeNs) return true;
      if (this.namesUs()) {
        held.ctimeNs = st.ctimeNs;
        return true;
      }
    }
    this.held = null;
    return false;
  }

  /** Whether the lock file names this process as its owner. */
  private namesUs(): boolean {
    try {
      const owner = parseLockOwner(readFileSync(this.path, 'utf8'));
      return owner.host === HOST && owner.pid === process.pid && owner.id === this.self.id;
    } catch {
      return false;
    }
  }

  /** Releases the lock if the file is still ours (`stillHeld`): one taken over or written over by another process is left alone. */
  release(): void {
    try {
      if (this.stillHeld()) unlinkSync(this.path);
    } catch {
      // Already gone (taken over as stale): nothing to release.
    }
    this.held = null;
  }

  /** Whether the owner a lock names is gone, still holds it, or cannot be checked. */
  private judge(owner: LockOwner, st: { ino: number; mtimeMs: number }): Verdict {
    if (owner.host !== HOST || owner.pid === undefined) return 'unknown';
    const ours = owner.pid === process.pid;
    if (!ours && !alive(owner.pid)) return 'gone';
    const start = ours ? this.self : this.startOf(owner.pid, st);
    if (!start) return 'unknown';
    const exact = owner.id !== undefined && start.id !== undefined;
    const same = exact ? owner.id === start.id : start.at <= (owner.since ?? st.mtimeMs) + START_SLACK_MS;
    // A lock naming this very process is another FileLock of ours on the same file: judged by age, as before.
    if (!same) return 'gone';
    if (ours) return 'unknown';
    if (exact) return 'owner';
    // Started before the lock was written, so it may have written it (an older server mid-write) unless it can't
    // be a memory server at all (init, pid 1, after a reboot): such a lock is stale once it is `staleMs` old.
    if (Date.now() - st.mtimeMs > this.options.staleMs) {
      const args = this.commandOf(owner.pid, st);
      if (args !== null && !mayBeMemoryServer(args)) return 'gone';
    }
    return 'held';
  }

  private commandOf(pid: number, st: { ino: number; mtimeMs: number }): string[] | null {
    if (this.platform === 'linux') {
      const args = commandLine(pid, 'linux');
      if (args !== null) return args;
    }
    if (this.platform === 'win32') return null;
    const key = `${st.ino}:${st.mtimeMs}:${pid}`;
    if (this.psCommand?.key !== key) this.psCommand = { key, args: commandLine(pid, 'darwin') };
    return this.psCommand.args;
  }

  private startOf(pid: number, st: { ino: number; mtimeMs: number }): ProcessStart | null {
    if (this.platform === 'linux') {
      const start = linuxStart(pid);
      if (start) return start;
    }
    if (this.platform === 'win32' || Date.now() - st.mtimeMs < PS_AFTER_MS) return null;
    const key = `${st.ino}:${st.mtimeMs}:${pid}`;
    if (this.psAnswer?.key !== key) this.psAnswer = { key, start: psStart(pid) };
    return this.psAnswer.start;
  }

  /** Removes the lock file when its owner is gone; true when the caller should try again. */
  private removeIfStale(): boolean {
    let st: ReturnType<typeof statSync>;
    let verdict: Verdict = 'unknown';
    try {
      st = statSync(this.path);
      verdict = this.judge(parseLockOwner(readFileSync(this.path, 'utf8')), st);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return true; // released meanwhile
      // Unreadable or half-written (owner killed between create and write): judge by age below.
      try {
        st = statSync(this.path);
      } catch {
        return true;
      }
    }
    this.lastVerdict = verdict;
    if (verdict === 'held' || verdict === 'owner') return false;
    if (verdict === 'unknown' && Date.now() - st.mtimeMs <= this.options.staleMs) return false;
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
