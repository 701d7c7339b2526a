/**
 * Durable file primitives: the few ways the store touches the disk, each one safe against a crash
 * at any instant. Nothing here knows about graphs or journals.
 *
 * - A file is identified by `FileId` (inode, size, mtime in ns): a rewrite or an append changes it.
 * - `appendDurablyTo` is the write path of every mutation: one `write` and one `fdatasync` (to a file held open).
 *   It is all or nothing: a write that puts down fewer bytes (a full disk) is followed by one for the
 *   rest, and one that fails (ENOSPC, EDQUOT, EIO), or an `fdatasync` that does, cuts the file back
 *   to its length before and throws: no part of a failed append stays behind.
 * - `writeTempFile` + `renameSync` + `fsyncDir` replace a file whole: a reader sees the old file or
 *   the new one, never a mix, and a crash leaves at worst a temp file (`removeStaleTemps`). A temp
 *   file is renamed only once all of it is written (its length checked) and fsynced.
 * - `openAppendNoFollow` appends to a side file (`.corrupt`) without ever writing through a link.
 * - `followLinks` finds the file a configured path really names, so every process sees one set of files.
 */
import { randomBytes } from 'node:crypto';
import {
  type BigIntStats,
  closeSync,
  constants,
  fdatasyncSync,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  lstatSync,
  openSync,
  readdirSync,
  readlinkSync,
  readSync,
  realpathSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';

/** What tells two versions of a file apart. */
export interface FileId {
  ino: bigint;
  size: bigint;
  mtimeNs: bigint;
}

/** A `FileId` as written into a journal header (bigints as strings). */
export type FileIdJson = { ino: string; size: string; mtimeNs: string };

export const idOf = (s: BigIntStats): FileId => ({ ino: s.ino, size: s.size, mtimeNs: s.mtimeNs });

export const idJson = (id: FileId | null): FileIdJson | null =>
  id ? { ino: String(id.ino), size: String(id.size), mtimeNs: String(id.mtimeNs) } : null;

/** Same file, same version (null: no file; two nulls are the same). */
export const sameId = (a: FileId | null, b: FileId | null): boolean =>
  a === null || b === null ? a === b : a.ino === b.ino && a.size === b.size && a.mtimeNs === b.mtimeNs;

/** `sameId` against a header's JSON form; `undefined` (a field missing from a header) never matches. */
export const sameIdJson = (a: FileIdJson | null | undefined, b: FileId | null): boolean =>
  a === undefined
    ? false
    : a === null
      ? b === null
      : b !== null && a.ino === String(b.ino) && a.size === String(b.size) && a.mtimeNs === String(b.mtimeNs);

export function statOrNull(path: string): BigIntStats | null {
  return statSync(path, { bigint: true, throwIfNoEntry: false }) ?? null;
}

/** `FileId` of `path` now (null when there is no file). */
export function fileIdOf(path: string): FileId | null {
  const st = statOrNull(path);
  return st ? idOf(st) : null;
}

/**
 * The file `path` names after following symbolic links (a chain of them, relative or absolute,
 * dangling too); `path` itself when it is not a link.
 */
export function followLinks(path: string): string {
  let current = path;
  for (let hops = 0; hops < 40; hops++) {
    const st = lstatSync(current, { throwIfNoEntry: false });
    if (!st?.isSymbolicLink()) return current;
    // Relative to the folder the link really is in (`..` in a link inside a linked folder).
    current = resolve(realpathSync(dirname(current)), readlinkSync(current));
  }
  throw Object.assign(new Error(`too many levels of symbolic links: ${path}`), { code: 'ELOOP' });
}

/** Makes a rename or an unlink in `dir` durable. */
export function fsyncDir(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch {
    // Not supported everywhere (Windows); the rename itself is still atomic.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * `data`, preceded by a newline when the file open at `fd` (for reading too), `size` bytes long, is not
 * empty and does not end with one: appended lines never run on from a last line someone else left
 * unterminated. `cleanEnd`: the caller knows the file ends with a newline when it is this long (no read then).
 */
function onNewLine(fd: number, size: number, data: string, cleanEnd?: number): string {
  if (size === 0 || size === cleanEnd) return data;
  const last = Buffer.alloc(1);
  return readSync(fd, last, 0, 1, size - 1) === 1 && last[0] !== 10 ? `\n${data}` : data;
}

/** The one call that puts bytes in a file (`writeSync`); a test passes another to inject faults. */
export type WriteFn = (fd: number, buffer: Uint8Array, offset: number, length: number) => number;

const noSpace = (): NodeJS.ErrnoException =>
  Object.assign(new Error('ENOSPC: no space left on device, write (a write put down no bytes)'), {
    code: 'ENOSPC',
    syscall: 'write',
  });

/**
 * Writes all of `data` at the file's position (its end, for a file opened to append): a short write
 * (a full disk) is followed by another for the rest, and a write that puts down nothing throws
 * `ENOSPC`. Returns the bytes written; a failure throws with the file holding part of `data`.
 */
export function writeAll(fd: number, data: string | Uint8Array, write: WriteFn = writeSync): number {
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  for (let done = 0; done < bytes.length; ) {
    const n = write(fd, bytes, done, bytes.length - done);
    if (!(n > 0)) throw noSpace();
    done += n;
  }
  return bytes.length;
}

/** Appends `data` (on a new line) and waits until it is on disk (`fdatasync`: the data and the new size); returns the bytes appended. */
export function appendDurably(path: string, data: string): number {
  const fd = openSync(path, 'a+');
  try {
    return appendDurablyTo(fd, data);
  } finally {
    closeSync(fd);
  }
}

/**
 * `appendDurably` to a file held open for appending (`a+`), so that a run of appends opens it once.
 * `cleanEnd` as for `onNewLine`. All or nothing: when a write or the `fdatasync` fails, the file is
 * cut back to its length before (and synced) and the error is thrown; nothing of `data` is left.
 * `size`: the file's length, when the caller knows it (it holds the lock and has just looked): no `fstat` then.
 */
export function appendDurablyTo(fd: number, data: string, cleanEnd?: number, write: WriteFn = writeSync, size?: number): number {
  const before = size ?? fstatSync(fd).size;
  try {
    const bytes = writeAll(fd, onNewLine(fd, before, data, cleanEnd), write);
    fdatasyncSync(fd);
    return bytes;
  } catch (error) {
    throw cutBack(fd, before, error);
  }
}

/**
 * Cuts the file open at `fd` back to `size` after a failed append (a shorter file needs no room) and
 * returns `error` to throw; when even that fails, an error saying so (with `error`'s code).
 */
function cutBack(fd: number, size: number, error: unknown): unknown {
  try {
    ftruncateSync(fd, size);
    fdatasyncSync(fd);
    return error;
  } catch (cutError) {
    const failed = error as NodeJS.ErrnoException;
    const message = `an append failed (${failed?.message}) and could not be cut back to ${size} bytes: ${(cutError as Error).message}`;
    return Object.assign(new Error(message, { cause: error }), failed?.code ? { code: failed.code } : {});
  }
}

/** A fresh temp-file name beside `target` (`<name>.<16 hex>.tmp`), the pattern `removeStaleTemps` knows. */
export function tempPathFor(target: string): string {
  return join(dirname(target), `${basename(target)}.${randomBytes(8).toString('hex')}.tmp`);
}

/**
 * Writes a new temp file beside `target` with `mode`, chunk by chunk (`chunks` yields strings, so a
 * large file is never one string in memory), checks that it holds every byte, and fsyncs it. Returns
 * its path and stats; the caller renames it into place. On any failure (a full disk: ENOSPC, EDQUOT;
 * EIO) the temp file is removed and the error thrown: nothing short is ever renamed into place.
 */
export function writeTempFile(
  target: string,
  chunks: Iterable<string>,
  mode: number,
  write: WriteFn = writeSync,
): { path: string; stat: BigIntStats } {
  const path = tempPathFor(target);
  const fd = openSync(path, 'wx', mode);
  try {
    let bytes = 0;
    for (const chunk of chunks) bytes += writeAll(fd, chunk, write);
    fsyncSync(fd);
    const stat = fstatSync(fd, { bigint: true });
    if (stat.size !== BigInt(bytes)) throw new Error(`${path} holds ${stat.size} bytes after ${bytes} were written`);
    return { path, stat };
  } catch (error) {
    removeQuietly(path);
    throw error;
  } finally {
    closeSync(fd);
  }
}

/** Removes a file of ours if it is there (a temp file a failed step leaves). */
export function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {}
}

/** Replaces `target` by a new file holding `chunks`, durably (temp file, fsync, rename, fsync of the folder). */
export function replaceFile(target: string, chunks: Iterable<string>, mode: number): BigIntStats {
  const { path, stat } = writeTempFile(target, chunks, mode);
  try {
    renameSync(path, target);
  } catch (error) {
    removeQuietly(path);
    throw error;
  }
  fsyncDir(dirname(target));
  return stat;
}

/**
 * The paths beside `target` named `<target's name>.<something>` where the name matches `pattern`
 * (temp files, lock owner files); none when the folder cannot be read.
 */
export function siblingsOf(target: string, pattern: RegExp): string[] {
  const dir = dirname(target);
  const prefix = `${basename(target)}.`;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names.filter((name) => name.startsWith(prefix) && pattern.test(name)).map((name) => join(dir, name));
}

/** Temp files beside `target` left by a killed process. Call it only while no one can be writing one (under the lock). */
export function removeStaleTemps(target: string): void {
  for (const path of siblingsOf(target, /\.[0-9a-f]{16}\.tmp$/)) removeQuietly(path);
}

/** Flags for appending to a side file: never through a symbolic link, never blocking on a FIFO (0 where the platform lacks them). */
const APPEND_NO_FOLLOW =
  constants.O_RDWR | constants.O_APPEND | constants.O_CREAT | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

/**
 * Opens `path` for appending without following a symbolic link (`O_NOFOLLOW`): a link found there
 * is moved aside (kept, never written through; `onLinkMoved` is told) and a regular file is created
 * in its place. Anything else that is not a regular file (a folder, a FIFO) is refused: it throws,
 * and the caller has written nothing.
 */
function openAppendNoFollow(path: string, onLinkMoved: (target: string, aside: string) => void): number {
  const notAFile = () => new Error(`${path} is not a regular file; refusing to set unreadable lines aside into it`);
  for (let attempt = 0; ; attempt++) {
    const st = lstatSync(path, { throwIfNoEntry: false });
    if (st && !st.isFile() && !st.isSymbolicLink()) throw notAFile();
    if (st?.isSymbolicLink()) {
      const aside = `${path}.${randomBytes(8).toString('hex')}.symlink`;
      const target = readlinkSync(path);
      renameSync(path, aside);
      onLinkMoved(target, aside);
    }
    let fd: number;
    try {
      fd = openSync(path, APPEND_NO_FOLLOW, 0o600);
    } catch (error) {
      // A link created between our check and the open (ELOOP, or EMLINK on FreeBSD): move it aside too.
      if (attempt < 2 && lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink()) continue;
      throw error;
    }
    if (fstatSync(fd).isFile()) return fd;
    closeSync(fd);
    throw notAFile();
  }
}

/** Appends `data` (on a new line) to a side file opened with `openAppendNoFollow`, durably and all or nothing (`appendDurablyTo`). */
export function appendNoFollow(path: string, data: string, onLinkMoved: (target: string, aside: string) => void): void {
  const fd = openAppendNoFollow(path, onLinkMoved);
  try {
    appendDurablyTo(fd, data);
  } finally {
    closeSync(fd);
  }
}
