/**
 * The git index (`.git/index`), read and written here rather than through isomorphic-git, which only
 * reads version 2 and is slow on large trees. Formats 2, 3 and 4 are read (header, entries with their
 * stat data, path-prefix compression of v4); of the extensions only the cache-tree is read (cacheTree.ts). Writing produces version 2 (3 when
 * an entry carries extended flags) without extensions: the cache-tree and untracked caches are
 * optional and git rebuilds them. A split or sparse index is refused rather than rewritten wrongly.
 * Writing goes through the index lock (indexLock.ts), never straight to the file.
 */
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { GitError } from '../errors.js';
import { type CacheTree, parseCacheTree } from './cacheTree.js';

export interface IndexEntry {
  path: string;
  oid: string;
  /** 0o100644, 0o100755, 0o120000 or 0o160000. */
  mode: number;
  /** 0 normally; 1 (base), 2 (ours), 3 (theirs) for an unmerged path. */
  stage: number;
  ctimeSeconds: number;
  ctimeNanoseconds: number;
  mtimeSeconds: number;
  mtimeNanoseconds: number;
  dev: number;
  ino: number;
  uid: number;
  gid: number;
  size: number;
  assumeValid: boolean;
  skipWorktree: boolean;
  intentToAdd: boolean;
}

export interface ParsedIndex {
  version: number;
  /** In index order (path bytes, then stage). */
  entries: IndexEntry[];
  /** Extension signatures present (`TREE`, `REUC`, `link`, `sdir`, …). */
  extensions: string[];
  /** The valid folders of the cache-tree extension (`TREE`), when the file has one. */
  cacheTree?: CacheTree;
  /** The index file's mtime (ms), for the "racily clean" check; 0 when there is no index. */
  mtimeMs: number;
}

const EXTENDED = 0x4000;
const ASSUME_VALID = 0x8000;
const SKIP_WORKTREE = 0x4000; // in the extended flags
const INTENT_TO_ADD = 0x2000; // in the extended flags

/** Parses an index file's bytes (throws a GitError on a damaged file). */
export function parseIndex(buf: Buffer, mtimeMs = 0): ParsedIndex {
  if (buf.length < 32 || buf.toString('latin1', 0, 4) !== 'DIRC')
    throw new GitError('DAMAGED', 'The git index (.git/index) is damaged: bad signature');
  const version = buf.readUInt32BE(4);
  if (version < 2 || version > 4) throw new GitError('DAMAGED', `The git index has version ${version}, which this server does not read`);
  const count = buf.readUInt32BE(8);
  const end = buf.length - 20;
  const entries: IndexEntry[] = new Array(count);
  let pos = 12;
  let previous: Buffer = Buffer.alloc(0);
  for (let i = 0; i < count; i++) {
    const start = pos;
    if (pos + 62 > end) throw new GitError('DAMAGED', 'The git index (.git/index) is damaged: truncated entry');
    const flags = buf.readUInt16BE(pos + 60);
    let extended = 0;
    pos += 62;
    if (flags & EXTENDED) {
      extended = buf.readUInt16BE(pos);
      pos += 2;
    }
    let pathBytes: Buffer;
    if (version === 4) {
      // Varint: bytes to drop from the end of the previous path, then a NUL-terminated suffix.
      let byte = buf[pos++]!;
      let strip = byte & 0x7f;
      while (byte & 0x80) {
        byte = buf[pos++]!;
        strip = ((strip + 1) << 7) | (byte & 0x7f);
      }
      const nul = buf.indexOf(0, pos);
      if (nul < 0 || nul > end) throw new GitError('DAMAGED', 'The git index (.git/index) is damaged: bad path');
      pathBytes = Buffer.concat([previous.subarray(0, previous.length - strip), buf.subarray(pos, nul)]);
      pos = nul + 1;
    } else {
      const nul = buf.indexOf(0, pos);
      if (nul < 0 || nul > end) throw new GitError('DAMAGED', 'The git index (.git/index) is damaged: bad path');
      pathBytes = buf.subarray(pos, nul);
      // Entries are padded with 1-8 NULs to a multiple of 8 bytes.
      pos = start + ((nul - start + 8) & ~7);
    }
    previous = pathBytes;
    entries[i] = {
      path: pathBytes.toString('utf8'),
      oid: buf.toString('hex', start + 40, start + 60),
      mode: buf.readUInt32BE(start + 24),
      stage: (flags >> 12) & 3,
      ctimeSeconds: buf.readUInt32BE(start),
      ctimeNanoseconds: buf.readUInt32BE(start + 4),
      mtimeSeconds: buf.readUInt32BE(start + 8),
      mtimeNanoseconds: buf.readUInt32BE(start + 12),
      dev: buf.readUInt32BE(start + 16),
      ino: buf.readUInt32BE(start + 20),
      uid: buf.readUInt32BE(start + 28),
      gid: buf.readUInt32BE(start + 32),
      size: buf.readUInt32BE(start + 36),
      assumeValid: (flags & ASSUME_VALID) !== 0,
      skipWorktree: (extended & SKIP_WORKTREE) !== 0,
      intentToAdd: (extended & INTENT_TO_ADD) !== 0,
    };
  }
  const extensions: string[] = [];
  let cacheTree: CacheTree | undefined;
  while (pos + 8 <= end) {
    const signature = buf.toString('latin1', pos, pos + 4);
    const size = buf.readUInt32BE(pos + 4);
    extensions.push(signature);
    if (signature === 'TREE' && pos + 8 + size <= end) cacheTree = parseCacheTree(buf, pos + 8, pos + 8 + size);
    pos += 8 + size;
  }
  return { version, entries, extensions, mtimeMs, ...(cacheTree ? { cacheTree } : {}) };
}

/** Git's index order: path bytes, then stage. */
function compareIndexPaths(a: string, b: string): number {
  if (a === b) return 0;
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

function clamp32(n: number): number {
  return n >>> 0 === n ? n : Math.max(0, Math.floor(n)) % 0x1_0000_0000;
}

/** Serializes entries (sorted here) as an index file, with its trailing checksum. */
export function serializeIndex(input: readonly IndexEntry[]): Buffer {
  const entries = [...input].sort((a, b) => compareIndexPaths(a.path, b.path) || a.stage - b.stage);
  const version = entries.some((e) => e.skipWorktree || e.intentToAdd) ? 3 : 2;
  const parts: Buffer[] = [];
  const header = Buffer.alloc(12);
  header.write('DIRC', 0, 'latin1');
  header.writeUInt32BE(version, 4);
  header.writeUInt32BE(entries.length, 8);
  parts.push(header);
  for (const e of entries) {
    const path = Buffer.from(e.path);
    const extended = e.skipWorktree || e.intentToAdd;
    const fixed = extended ? 64 : 62;
    const length = (fixed + path.length + 8) & ~7;
    const b = Buffer.alloc(length);
    const fields = [e.ctimeSeconds, e.ctimeNanoseconds, e.mtimeSeconds, e.mtimeNanoseconds, e.dev, e.ino, e.mode, e.uid, e.gid, e.size];
    for (let i = 0; i < fields.length; i++) b.writeUInt32BE(clamp32(fields[i]!), i * 4);
    b.write(e.oid, 40, 'hex');
    let flags = ((e.stage & 3) << 12) | Math.min(path.length, 0xfff);
    if (e.assumeValid) flags |= ASSUME_VALID;
    if (extended) flags |= EXTENDED;
    b.writeUInt16BE(flags, 60);
    if (extended) b.writeUInt16BE((e.skipWorktree ? SKIP_WORKTREE : 0) | (e.intentToAdd ? INTENT_TO_ADD : 0), 62);
    path.copy(b, fixed);
    parts.push(b);
  }
  const body = Buffer.concat(parts);
  return Buffer.concat([body, createHash('sha1').update(body).digest()]);
}

/** Reads `<gitdir>/index`; a missing index is an empty one. */
export function readIndexFile(gitdir: string): ParsedIndex {
  const file = join(gitdir, 'index');
  let buf: Buffer;
  let mtimeMs = 0;
  try {
    mtimeMs = statSync(file).mtimeMs;
    buf = readFileSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { version: 2, entries: [], extensions: [], mtimeMs: 0 };
    throw error;
  }
  return parseIndex(buf, mtimeMs);
}

/** Throws when the index is one this server must not rewrite (split or sparse). */
export function assertWritableIndex(current: ParsedIndex): void {
  if (current.extensions.includes('link')) {
    throw new GitError(
      'UNSUPPORTED',
      'This repository uses a split index (core.splitIndex), which this server does not write; run `git update-index --no-split-index` first',
    );
  }
  if (current.extensions.includes('sdir')) {
    throw new GitError(
      'UNSUPPORTED',
      'This repository uses a sparse index, which this server does not write; run `git sparse-checkout disable` or `git config index.sparse false` first',
    );
  }
}
