/**
 * Durable file primitives: the few ways the store touches the disk, each one safe against a crash
 * at any instant. Nothing here knows about graphs or journals.
 *
 * - A file is identified by `FileId` (inode, size, mtime in ns): a rewrite or an append changes it.
 * - `appendDurablyTo` is the write path of every mutation: one `write` and one `fdatasync` (to a file held open).
 * - `writeTempFile` + `renameSync` + `fsyncDir` replace a file whole: a reader sees the old file or
 *   the new one, never a mix, and a crash leaves at worst a temp file (`removeStaleTemps`).
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
 * `data`, preceded by a newline when the file open at `fd` (for reading too) is not empty and does
 * not end with one: appended lines never run on from a last line someone else left unterminated.
 * `cleanEnd`: the caller knows the file ends with a newline when it is this long (no read then).
 */
function onNewLine(fd: number, data: string, cleanEnd?: number): string {
  const size = fstatSync(fd).size;
  if (size === 0 || size === cleanEnd) return data;
  const last = Buffer.alloc(1);
  return readSync(fd, last, 0, 1, size - 1) === 1 && last[0] !== 10 ? `\n${data}` : data;
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
 * `cleanEnd` as for `onNewLine`.
 */
export function appendDurablyTo(fd: number, data: string, cleanEnd?: number): number {
  const bytes = writeSync(fd, onNewLine(fd, data, cleanEnd));
  fdatasyncSync(fd);
  return bytes;
}

/** A fresh temp-file name beside `target` (`<name>.<16 hex>.tmp`), the pattern `removeStaleTemps` knows. */
export function tempPathFor(target: string): string {
  return join(dirname(target), `${basename(target)}.${randomBytes(8).toString('hex')}.tmp`);
}

/**
 * Writes a new temp file beside `target` with `mode`, chunk by chunk (`chunks` yields strings, so a
 * large file is never one string in memory), and fsyncs it. Returns its path and stats; the caller
 * renames it into place. On failure the temp file is removed.
 */
export function writeTempFile(target: string, chunks: Iterable<string>, mode: number): { path: string; stat: BigIntStats } {
  const path = tempPathFor(target);
  const fd = openSync(path, 'wx', mode);
  try {
    for (const chunk of chunks) writeSync(fd, chunk);
    fsyncSync(fd);
    return { path, stat: fstatSync(fd, { bigint: true }) };
  } catch (error) {
    try {
      unlinkSync(path);
    } catch {}
    throw error;
  } finally {
    closeSync(fd);
  }
}

/** Replaces `target` by a new file holding `chunks`, durably (temp file, fsync, rename, fsync of the folder). */
export function replaceFile(target: string, chunks: Iterable<string>, mode: number): BigIntStats {
  const { path, stat } = writeTempFile(target, chunks, mode);
  renameSync(path, target);
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
  for (const path of siblingsOf(target, /\.[0-9a-f]{16}\.tmp$/)) {
    try {
      unlinkSync(path);
    } catch {}
  }
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
export function openAppendNoFollow(path: string, onLinkMoved: (target: string, aside: string) => void): number {
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

/** Appends `data` (on a new line) to a side file opened with `openAppendNoFollow`, durably. */
export function appendNoFollow(path: string, data: string, onLinkMoved: (target: string, aside: string) => void): void {
  const fd = openAppendNoFollow(path, onLinkMoved);
  try {
    writeSync(fd, onNewLine(fd, data));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
