/**
 * The repository's objects as git reads them, synchronously and kept per repository between calls: the
 * packs first (each .idx loaded once, on the first read that needs it, the `objects/pack` listing kept
 * until that folder's mtime changes), then the loose object, with no probe for a loose file when a pack
 * has the object. A miss looks at the pack folder again before answering null (a pack written since, as
 * git's reprepare_packed_git does). Null means "not read here": the caller falls back to isomorphic-git,
 * which then reads it or throws its own error, so errors stay isomorphic-git's. Abbreviated ids are
 * expanded the same way: a prefix search in each .idx and a listing of the one loose-object folder.
 *
 * Not handled here (left to that fallback): alternates, .idx version 1, packs over 1 GiB.
 */
import { closeSync, openSync, readdirSync, readFileSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { constants, inflateSync } from 'node:zlib';
import { type ObjectType, openPack, type PackFile, type PackHost, type RawObject } from './packFile.js';

export type { ObjectType, RawObject } from './packFile.js';

export interface ObjectStore {
  /** The object by full lowercase oid, or null (missing, or not readable here). */
  read(oid: string): RawObject | null;
  /**
   * The distinct object ids starting with the lowercase hex `prefix` (4 digits or more), packed or loose,
   * at most `limit` of them (2 tell a unique prefix from an ambiguous one); null when a pack cannot be
   * searched here (an .idx of version 1), so the caller asks isomorphic-git.
   */
  startingWith(prefix: string, limit: number): string[] | null;
  /** The object's size from its header alone (nothing inflated past it), or null (missing, or not readable here). */
  size(oid: string): number | null;
  /** Looks at `objects/pack` again if its mtime changed (once per call is enough). */
  refresh(): void;
}

const OID_RE = /^[0-9a-f]{40}$/;
const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';
/** Delta bases (and results) kept, least recently used dropped first (git's delta_base_cache is 96 MiB). */
const BASE_CACHE_BYTES = 48 * 1024 * 1024;
const LOOSE_TYPES = new Set(['commit', 'tree', 'blob', 'tag']);
const LOOSE_NAME_RE = /^[0-9a-f]{38}$/;

/** The loose objects whose ids start with `prefix` (the folder `objects/<first two digits>` listed). */
function looseStartingWith(gitdir: string, prefix: string): string[] {
  let names: string[];
  try {
    names = readdirSync(join(gitdir, 'objects', prefix.slice(0, 2)));
  } catch {
    return [];
  }
  const rest = prefix.slice(2);
  const out: string[] = [];
  for (const name of names) if (name.startsWith(rest) && LOOSE_NAME_RE.test(name)) out.push(prefix.slice(0, 2) + name);
  return out;
}

function readLoose(gitdir: string, oid: string): RawObject | null {
  let raw: Buffer;
  try {
    raw = readFileSync(join(gitdir, 'objects', oid.slice(0, 2), oid.slice(2)));
  } catch {
    return null;
  }
  try {
    const data = inflateSync(raw);
    const nul = data.indexOf(0);
    if (nul < 0 || nul > 32) return null;
    const header = data.toString('latin1', 0, nul);
    const space = header.indexOf(' ');
    const type = header.slice(0, space);
    const len = Number(header.slice(space + 1));
    if (!LOOSE_TYPES.has(type) || !Number.isInteger(len) || len !== data.length - nul - 1) return null;
    return { type: type as ObjectType, data: data.subarray(nul + 1) };
  } catch {
    return null;
  }
}

/** A loose object's size from the header at the start of its zlib stream (the file's first bytes). */
function looseSize(gitdir: string, oid: string): number | null {
  let start: Buffer;
  try {
    const fd = openSync(join(gitdir, 'objects', oid.slice(0, 2), oid.slice(2)), 'r');
    try {
      start = Buffer.alloc(256);
      start = start.subarray(0, readSync(fd, start, 0, start.length, 0));
    } finally {
      closeSync(fd);
    }
    const head = inflateSync(start, { finishFlush: constants.Z_SYNC_FLUSH });
    const nul = head.indexOf(0);
    const m = nul < 0 ? null : /^(commit|tree|blob|tag) (\d+)$/.exec(head.toString('latin1', 0, nul));
    return m ? Number(m[2]) : null;
  } catch {
    return null;
  }
}

export function createObjectStore(gitdir: string): ObjectStore {
  const packDir = join(gitdir, 'objects', 'pack');
  let listedAt: number | undefined;
  /** Pack name → its reader (null: not readable here), loaded on the first lookup; in listing order. */
  let packs = new Map<string, PackFile | null | undefined>();
  const cache = new Map<number, RawObject>();
  /** Each pack opened gets its own number, for the base cache's keys. */
  let opened = 0;
  let cacheBytes = 0;

  const list = (): boolean => {
    let mtime: number;
    try {
      mtime = statSync(packDir).mtimeMs;
    } catch {
      mtime = -1;
    }
    if (mtime === listedAt) return false;
    listedAt = mtime;
    let names: string[] = [];
    try {
      names = readdirSync(packDir).filter((n) => n.endsWith('.idx'));
    } catch {
      // no pack folder: loose objects only
    }
    const next = new Map<string, PackFile | null | undefined>();
    for (const n of names) next.set(n, packs.get(n));
    packs = next;
    return true;
  };

  const host: PackHost = {
    cacheGet(key) {
      const hit = cache.get(key);
      if (hit) {
        cache.delete(key);
        cache.set(key, hit);
      }
      return hit;
    },
    cacheSet(key, value) {
      if (value.data.length > BASE_CACHE_BYTES / 8 || cache.has(key)) return;
      cache.set(key, value);
      cacheBytes += value.data.length;
      while (cacheBytes > BASE_CACHE_BYTES) {
        const [k, v] = cache.entries().next().value as [number, RawObject];
        cache.delete(k);
        cacheBytes -= v.data.length;
      }
    },
    readOid: (oid) => read(oid),
  };

  /** The pack named `n` of the listing, opened (its .idx loaded) on first use; null when not readable here. */
  const packNamed = (n: string, known: PackFile | null | undefined): PackFile | null => {
    if (known !== undefined) return known;
    let pack: PackFile | null;
    try {
      pack = openPack(join(packDir, n), opened++);
    } catch {
      pack = null;
    }
    packs.set(n, pack);
    return pack;
  };

  const fromPacks = (bin: Buffer): RawObject | null => {
    for (const [n, known] of packs) {
      const pack = packNamed(n, known);
      if (!pack) continue;
      const offset = pack.find(bin);
      if (offset >= 0) return pack.readAt(offset, host);
    }
    return null;
  };

  const read = (oid: string): RawObject | null => {
    if (!OID_RE.test(oid)) return null;
    if (oid === EMPTY_TREE) return { type: 'tree', data: Buffer.alloc(0) };
    if (listedAt === undefined) list();
    const bin = Buffer.from(oid, 'hex');
    const found = fromPacks(bin) ?? readLoose(gitdir, oid);
    if (found) return found;
    // Perhaps a pack written since the listing (a fetch, a repack that removed the loose file).
    return list() ? fromPacks(bin) : null;
  };

  return {
    read,
    size(oid) {
      if (!OID_RE.test(oid)) return null;
      if (listedAt === undefined) list();
      const bin = Buffer.from(oid, 'hex');
      for (const [n, known] of packs) {
        const pack = packNamed(n, known);
        const offset = pack ? pack.find(bin) : -1;
        if (offset >= 0) return pack!.sizeAt(offset);
      }
      return looseSize(gitdir, oid);
    },
    startingWith(prefix, limit) {
      if (!/^[0-9a-f]{4,40}$/.test(prefix)) return [];
      if (listedAt === undefined) list();
      const found = new Set<string>(looseStartingWith(gitdir, prefix));
      for (const [n, known] of packs) {
        if (found.size >= limit) break;
        const pack = packNamed(n, known);
        if (!pack) return null;
        for (const oid of pack.startingWith(prefix, limit)) found.add(oid);
      }
      return [...found].slice(0, limit);
    },
    refresh() {
      if (listedAt !== undefined) list();
    },
  };
}
