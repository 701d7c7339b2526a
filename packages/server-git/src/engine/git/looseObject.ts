/**
 * A loose object (`objects/xx/yyyy…`), read the way its header allows and no further: the header from the
 * file's first bytes, its size checked against --max-object-size and against the file's length, then the
 * whole stream inflated with `maxOutputLength` set to exactly what the header declares. A file that
 * inflates past its header, or that is not an object, is an ObjectStoreDamaged naming the oid.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { constants, inflateSync } from 'node:zlib';
import { charge, checkSize, ObjectStoreDamaged, type ReadBudget } from './objectLimits.js';
import { maxDeflated, type ObjectType, type RawObject } from './packFile.js';

/** The file's first bytes read for its header: a zlib stream's header and first block fit in them. */
const HEAD_BYTES = 1024;
const HEADER_RE = /^(commit|tree|blob|tag) (0|[1-9]\d{0,15})$/;

interface LooseHead {
  type: ObjectType;
  size: number;
  /** The header's length with its NUL. */
  headerLength: number;
}

/** The header at the start of `head` (inflated bytes), or the reason it is none; null when `head` is too short to tell. */
function parseLooseHead(head: Buffer): LooseHead | string | null {
  const nul = head.indexOf(0);
  if (nul < 0 || nul > 32) return head.length > 32 ? 'its header is not an object header' : null;
  const m = HEADER_RE.exec(head.toString('latin1', 0, nul));
  if (!m) return 'its header is not an object header';
  return { type: m[1] as ObjectType, size: Number(m[2]), headerLength: nul + 1 };
}

/** The header from `start`, the file's first bytes (at most HEAD_BYTES: their output is bounded too). */
function inflateHead(start: Buffer): Buffer {
  return inflateSync(start, { finishFlush: constants.Z_SYNC_FLUSH, maxOutputLength: 1032 * HEAD_BYTES + 1024 });
}

function readAll(fd: number, length: number, at = 0): Buffer {
  const out = Buffer.allocUnsafe(length);
  let got = 0;
  while (got < length) {
    const n = readSync(fd, out, got, length - got, at + got);
    if (n === 0) break;
    got += n;
  }
  return out.subarray(0, got);
}

function looseFile(gitdir: string, oid: string): string {
  return join(gitdir, 'objects', oid.slice(0, 2), oid.slice(2));
}

/** The loose object `oid` within `budget`, or null when there is no such file. */
export function readLoose(gitdir: string, oid: string, budget: ReadBudget): RawObject | null {
  let fd: number;
  try {
    fd = openSync(looseFile(gitdir, oid), 'r');
  } catch {
    return null;
  }
  try {
    const length = fstatSync(fd).size;
    let head: LooseHead | string | null;
    try {
      head = parseLooseHead(inflateHead(readAll(fd, Math.min(length, HEAD_BYTES))));
    } catch (error) {
      throw new ObjectStoreDamaged(oid, `its loose file is not a zlib stream (${(error as Error).message})`);
    }
    if (head === null) head = 'its header is cut short';
    if (typeof head === 'string') throw new ObjectStoreDamaged(oid, head);
    checkSize(budget, head.type, oid, head.size);
    const total = head.headerLength + head.size;
    if (length > maxDeflated(total))
      throw new ObjectStoreDamaged(
        oid,
        `its loose file is ${length} bytes, more than the ${head.size} bytes its header declares could compress to`,
      );
    charge(budget, total, oid);
    let data: Buffer;
    try {
      data = inflateSync(readAll(fd, length), { maxOutputLength: total, chunkSize: Math.max(64, total + 1) });
    } catch (error) {
      throw new ObjectStoreDamaged(
        oid,
        (error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE'
          ? `it inflates to more than the ${head.size} bytes its header declares`
          : `its zlib stream is corrupt (${(error as Error).message})`,
      );
    }
    if (data.length !== total)
      throw new ObjectStoreDamaged(
        oid,
        `it inflates to ${data.length - head.headerLength} bytes, not the ${head.size} its header declares`,
      );
    return { type: head.type, data: data.subarray(head.headerLength) };
  } finally {
    closeSync(fd);
  }
}

/** A loose object's size from the header at the start of its zlib stream (the file's first bytes); null when missing or unreadable. */
export function looseSize(gitdir: string, oid: string): number | null {
  try {
    const fd = openSync(looseFile(gitdir, oid), 'r');
    let start: Buffer;
    try {
      start = readAll(fd, 256);
    } finally {
      closeSync(fd);
    }
    const head = parseLooseHead(inflateHead(start));
    return head && typeof head !== 'string' ? head.size : null;
  } catch {
    return null;
  }
}
