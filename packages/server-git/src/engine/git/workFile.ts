/**
 * Every read and write of work-tree content, made so that a symbolic link is never followed, not even
 * one swapped in after the caller's check (a `mv sub sub.real; ln -s /elsewhere sub` loop running
 * next to the server): the check and the use must be about the same file.
 *
 * Why this way. Node has no openat(), so a path cannot be walked from a folder's fd. On Linux,
 * `/proc/self/fd/<fd>` stands in for it twice over:
 * - readlink of it is the kernel's own name for what the fd is open on. A file opened with O_NOFOLLOW
 *   (the last component) whose name is exactly the path asked for was reached through no link at all:
 *   a link on the way would have taken the kernel's walk to its target, and the target's name is what
 *   the kernel reports. Anything else is absent, as git sees it (ENOENT).
 * - a path through it is resolved from that fd (the "at" in openat). A write opens and checks the
 *   parent folder that way, then makes every change through `/proc/self/fd/<fd>/<name>`: once the
 *   folder is pinned, a link swapped in for it changes nothing (the write lands in the folder that was
 *   checked, inside the work tree, wherever it has been moved to).
 * Without /proc (macOS, BSD, Windows, a container that hides it) the fd's fstat is compared with an
 * lstat of the path after the open, and the parent's realpath must be the expected folder, before and
 * after each change. That leaves a window (a link swapped in and out again between two of those
 * looks) which only /proc closes; it is stated here, not hidden.
 *
 * Reads open with O_NONBLOCK, so a fifo swapped in never hangs a call, and take only regular files.
 */
import { randomBytes } from 'node:crypto';
import {
  type BigIntStats,
  closeSync,
  constants,
  type Dirent,
  existsSync,
  fchmodSync,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  renameSync,
  rmdirSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';

/**
 * A test seam: called with the absolute path right before it is opened (after every check the caller made), or
 * before a link's text is read once its lstat said it is a link.
 */
export interface WorkFileHooks {
  beforeOpen?(abs: string): void;
}

/** A file read from the work tree, with the fstat of the very file read (bigint: the index's nanoseconds). */
export interface ReadFile {
  bytes: Buffer;
  stat: BigIntStats;
}

export interface WorkFiles {
  /** The bytes of the regular file `rel`. ENOENT when it is missing, not a file, or reached through a link. */
  read(rel: string): ReadFile;
  /** The text of the symlink `rel`, with its lstat. ENOENT when it is missing, not a link, or beyond one. */
  readlink(rel: string): ReadFile;
  /** The entries of folder `rel` ('' = top). ENOTDIR when it is a link or reached through one. */
  list(rel: string): Dirent[];
  /** Replaces `rel` (a link or a file) with a regular file holding `bytes`: written to a temp file beside it, then renamed. */
  write(rel: string, bytes: Uint8Array, mode: number): void;
  symlink(target: string, rel: string): void;
  mkdir(rel: string, mode?: number): void;
  unlink(rel: string): void;
  rmdir(rel: string): void;
  rm(rel: string, options?: { recursive?: boolean; force?: boolean }): void;
  /** chmod of a regular file; a link is never changed (nothing happens). */
  chmod(rel: string, mode: number): void;
  rename(from: string, to: string): void;
}

/** O_NOFOLLOW and O_DIRECTORY where the platform has them (0 on Windows, where the realpath checks do the work). */
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const DIRECTORY = constants.O_DIRECTORY ?? 0;
const NONBLOCK = constants.O_NONBLOCK ?? 0;
/** Whether the kernel names an fd's file (Linux's /proc): decided once, from the platform, never changed. */
const PROC_FD = process.platform === 'linux' && existsSync('/proc/self/fd');

/** An fs error as node makes them (code, path), for a path git would treat as absent or never touch. */
export function linkError(code: 'ENOENT' | 'ENOTDIR' | 'EACCES', op: string, abs: string): NodeJS.ErrnoException {
  const why = code === 'EACCES' ? `${op} beyond a symbolic link in the work tree is not allowed` : `${op}: beyond a symbolic link`;
  const error: NodeJS.ErrnoException = new Error(`${code}: ${why}: '${abs}'`);
  error.code = code;
  error.path = abs;
  return error;
}

const codeOf = (error: unknown) => (error as NodeJS.ErrnoException | null)?.code;

/** A file that is gone, or is no longer what was checked (ENOENT, ENOTDIR): git treats it as deleted. */
export function isVanished(error: unknown): boolean {
  const code = codeOf(error);
  return code === 'ENOENT' || code === 'ENOTDIR';
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // closing a read-only fd cannot lose data
  }
}

/** True when `fd` is open on `abs`, reached through no symlink (see the top of this file). */
function opensAt(fd: number, abs: string, parent: string): boolean {
  if (PROC_FD) return readlinkSync(`/proc/self/fd/${fd}`) === abs;
  const st = fstatSync(fd);
  let now: ReturnType<typeof lstatSync>;
  try {
    if (realpathSync(parent) !== parent) return false;
    now = lstatSync(abs);
    if (realpathSync(parent) !== parent) return false;
  } catch {
    return false;
  }
  return now.dev === st.dev && now.ino === st.ino;
}

/** Opens `abs` (the last component never followed) and checks it was reached through no link; ENOENT otherwise. */
function openChecked(abs: string, parent: string, flags: number, op: string, hooks: WorkFileHooks | undefined): number {
  hooks?.beforeOpen?.(abs);
  let fd: number;
  try {
    fd = openSync(abs, flags | NOFOLLOW);
  } catch (error) {
    if (codeOf(error) === 'ELOOP') throw linkError('ENOENT', op, abs);
    throw error;
  }
  if (!opensAt(fd, abs, parent)) {
    closeQuietly(fd);
    throw linkError('ENOENT', op, abs);
  }
  return fd;
}

/** Whether something (a link too) is at `abs`. */
function present(abs: string): boolean {
  try {
    lstatSync(abs);
    return true;
  } catch {
    return false;
  }
}

/** Whether `abs` is a symlink itself. */
function isLink(abs: string): boolean {
  try {
    return lstatSync(abs).isSymbolicLink();
  } catch {
    return false;
  }
}

/** A folder held open for changes in it: `at(name)` is a path the kernel resolves from the checked folder. */
interface Pinned {
  at(name: string): string;
  /** Closes it; without /proc, checks once more that the folder is still the real one (EACCES if not). */
  done(): void;
}

export function createWorkFiles(top: string, hooks?: WorkFileHooks): WorkFiles {
  const split = (rel: string) => {
    const slash = rel.lastIndexOf('/');
    const parent = slash < 0 ? top : join(top, rel.slice(0, slash));
    return { abs: join(top, rel), parent, name: slash < 0 ? rel : rel.slice(slash + 1) };
  };
  /** Pins the folder `parent` (absolute) for a change named `op`; a link anywhere on its way is EACCES. */
  const pin = (parent: string, op: string): Pinned => {
    if (!PROC_FD) {
      const check = () => {
        if (realpathSync(parent) !== parent) throw linkError('EACCES', op, parent);
      };
      hooks?.beforeOpen?.(parent);
      check();
      return { at: (name) => join(parent, name), done: check };
    }
    let fd: number;
    try {
      fd = openChecked(parent, parent, constants.O_RDONLY | DIRECTORY, op, hooks);
    } catch (error) {
      // A missing folder stays ENOENT (isomorphic-git then makes it) and a file stays ENOTDIR, as the OS says;
      // one that is a link (ENOTDIR under O_DIRECTORY|O_NOFOLLOW) or is reached through one is refused.
      const code = codeOf(error);
      if ((code === 'ENOTDIR' && isLink(parent)) || (code === 'ENOENT' && present(parent))) throw linkError('EACCES', op, parent);
      throw error;
    }
    return { at: (name) => `/proc/self/fd/${fd}/${name}`, done: () => closeQuietly(fd) };
  };
  const inFolder = <T>(rel: string, op: string, change: (path: string, abs: string) => T): T => {
    const { abs, parent, name } = split(rel);
    const folder = pin(parent, op);
    try {
      return change(folder.at(name), abs);
    } finally {
      folder.done();
    }
  };
  const read = (rel: string): ReadFile => {
    const { abs, parent } = split(rel);
    const fd = openChecked(abs, parent, constants.O_RDONLY | NONBLOCK, 'read', hooks);
    try {
      const stat = fstatSync(fd, { bigint: true });
      if (!stat.isFile()) throw linkError('ENOENT', 'read', abs);
      return { bytes: readFileSync(fd), stat };
    } finally {
      closeQuietly(fd);
    }
  };
  const readlink = (rel: string): ReadFile => {
    const { abs, parent, name } = split(rel);
    let folder: Pinned;
    try {
      folder = pin(parent, 'readlink');
    } catch (error) {
      throw codeOf(error) === 'EACCES' ? linkError('ENOENT', 'readlink', abs) : error;
    }
    try {
      const stat = lstatSync(folder.at(name), { bigint: true });
      if (!stat.isSymbolicLink()) throw linkError('ENOENT', 'readlink', abs);
      hooks?.beforeOpen?.(abs);
      try {
        return { bytes: readlinkSync(folder.at(name), { encoding: 'buffer' }), stat };
      } catch (error) {
        // Replaced by a file or a folder since its lstat (EINVAL: not a link), or gone: no longer what was checked.
        if (codeOf(error) === 'EINVAL') throw linkError('ENOENT', 'readlink', abs);
        throw error;
      }
    } finally {
      folder.done();
    }
  };
  const list = (rel: string): Dirent[] => {
    const abs = rel === '' ? top : join(top, rel);
    if (!PROC_FD) {
      const real = () => realpathSync(abs) === abs;
      hooks?.beforeOpen?.(abs);
      if (!real()) throw linkError('ENOTDIR', 'readdir', abs);
      const entries = readdirSync(abs, { withFileTypes: true });
      if (!real()) throw linkError('ENOTDIR', 'readdir', abs);
      return entries;
    }
    let fd: number;
    try {
      fd = openChecked(abs, abs, constants.O_RDONLY | DIRECTORY, 'readdir', hooks);
    } catch (error) {
      throw codeOf(error) === 'ENOENT' && present(abs) ? linkError('ENOTDIR', 'readdir', abs) : error;
    }
    try {
      return readdirSync(`/proc/self/fd/${fd}`, { withFileTypes: true });
    } finally {
      closeQuietly(fd);
    }
  };
  const write = (rel: string, bytes: Uint8Array, mode: number): void =>
    inFolder(rel, 'write', (path, abs) => {
      const { name } = split(rel);
      const temp = `${path.slice(0, path.length - name.length)}.mcpkit-${randomBytes(6).toString('hex')}.tmp`;
      const fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW, mode);
      let open = true;
      let renamed = false;
      try {
        for (let done = 0; done < bytes.length; ) {
          const n = writeSync(fd, bytes, done, bytes.length - done);
          if (n <= 0) throw Object.assign(new Error(`ENOSPC: short write to '${abs}'`), { code: 'ENOSPC', path: abs });
          done += n;
        }
        open = false;
        closeSync(fd); // reports a failed delayed write (NFS, a full disk) before the file replaces anything
        renameSync(temp, path);
        renamed = true;
      } finally {
        if (open) closeQuietly(fd);
        if (!renamed) {
          try {
            unlinkSync(temp);
          } catch {
            // the temp file may not be there any more; nothing else was changed
          }
        }
      }
    });
  return {
    read,
    readlink,
    list,
    write,
    symlink: (target, rel) => inFolder(rel, 'symlink', (path) => symlinkSync(target, path)),
    mkdir: (rel, mode) => inFolder(rel, 'mkdir', (path) => mkdirSync(path, mode)),
    unlink: (rel) => inFolder(rel, 'unlink', (path) => unlinkSync(path)),
    rmdir: (rel) => inFolder(rel, 'rmdir', (path) => rmdirSync(path)),
    rm: (rel, options) => inFolder(rel, 'rm', (path) => rmSync(path, options)),
    chmod: (rel, mode) =>
      inFolder(rel, 'chmod', (path) => {
        let fd: number;
        try {
          fd = openSync(path, constants.O_RDONLY | NONBLOCK | NOFOLLOW);
        } catch (error) {
          if (codeOf(error) === 'ELOOP') return; // git never chmods a link
          throw error;
        }
        try {
          fchmodSync(fd, mode);
        } finally {
          closeQuietly(fd);
        }
      }),
    rename: (from, to) => inFolder(from, 'rename', (a) => inFolder(to, 'rename', (b) => renameSync(a, b))),
  };
}
