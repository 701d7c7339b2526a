/**
 * Paging of large patch texts: a page holds at most `max_bytes` bytes of the patch (default 1 MiB),
 * cut at a line end; the opaque `next_cursor` names where the next page starts and a fingerprint of
 * the whole patch, so a cursor from a repository that changed since is refused rather than misread.
 * (The `max_bytes` and `cursor` inputs are in ../tools/diffSchemas.ts: a start-up lists them without
 * loading this module and node:crypto.)
 */
import { createHash } from 'node:crypto';
import { GitError } from '../errors.js';
import { decodeByteString } from './patch.js';

export const DEFAULT_MAX_BYTES = 1024 * 1024;

export interface Paged {
  /** The page (a byte string), decoded. */
  text: string;
  /** Byte range of the page within the whole patch. */
  start: number;
  end: number;
  total: number;
  truncated: boolean;
  next_cursor?: string;
}

export function fingerprint(bytes: string): string {
  return createHash('sha1').update(bytes, 'latin1').digest('hex').slice(0, 12);
}

function encodeCursor(offset: number, fp: string): string {
  return Buffer.from(`v1:${offset}:${fp}`).toString('base64url');
}

function decodeCursor(cursor: string): { offset: number; fp: string } {
  const m = /^v1:(\d+):([0-9a-f]{12})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!m) throw new GitError('INVALID_ARGUMENT', `Invalid cursor '${cursor}': pass the next_cursor of a previous call unchanged`);
  return { offset: Number(m[1]), fp: m[2]! };
}

/** The fingerprint a cursor carries (of the whole patch it pages), or undefined for a malformed cursor. */
export function cursorFingerprint(cursor: string): string | undefined {
  return /^v1:\d+:([0-9a-f]{12})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'))?.[1];
}

/** One page of `bytes` (a byte string). */
export function pageBytes(bytes: string, maxBytes: number | undefined, cursor: string | undefined, known?: string): Paged {
  const fp = known ?? fingerprint(bytes);
  let start = 0;
  if (cursor !== undefined) {
    const c = decodeCursor(cursor);
    if (c.fp !== fp || c.offset > bytes.length) {
      throw new GitError(
        'INVALID_ARGUMENT',
        'The changes are not the same as when this cursor was returned; call again without cursor to start over',
      );
    }
    start = c.offset;
  }
  const limit = maxBytes ?? DEFAULT_MAX_BYTES;
  let end = start + limit;
  if (end >= bytes.length) end = bytes.length;
  else {
    const nl = bytes.lastIndexOf('\n', end - 1);
    if (nl >= start) end = nl + 1;
    else while (end > start + 1 && (bytes.charCodeAt(end) & 0xc0) === 0x80) end--;
  }
  const truncated = end < bytes.length;
  return {
    text: decodeByteString(bytes.slice(start, end)),
    start,
    end,
    total: bytes.length,
    truncated,
    ...(truncated ? { next_cursor: encodeCursor(end, fp) } : {}),
  };
}
