/**
 * The repository's objects as git reads them, synchronously and kept per repository between calls: the
 * packs first (each .idx loaded once, on the first read that needs it, the `objects/pack` listing kept
 * until that folder's mtime changes), then the loose object, with no probe for a loose file when a pack
 * has the object. A miss looks at the pack folder again before answering null (a pack written since, as
 * git's reprepare_packed_git does). Null means "not read here": the caller falls back to isomorphic-git,
 * which then reads it or throws its own error, so errors stay isomorphic-git's.
 *
 * Not handled here (left to that fallback): alternates, .idx version 1, packs over 1 GiB.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { inflateSync } from 'node:zlib';
import { type ObjectType, openPack, type PackFile, type PackHost, type RawObject } from './packFile.js';

export type { ObjectType, RawObject } from './packFile.js';

export interface ObjectStore {
  /** The object by full lowercase oid, or null (missing, or not readable here). */
  read(oid: string): RawObject | null;
  /** Looks at `objects/pack` again if its mtime changed (once per call is enough). */
  refresh(): void;
}

const OID_RE = /^[0-9a-f]{40}$/;
const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';
/** Delta bases (and results) kept, least recently used dropped first (git's delta_base_cache is 96 MiB). */
const BASE_CACHE_BYTES = 48 * 1024 * 1024;
const LOOSE_TYPES = new Set(['commit', 'tree', 'blob', 'tag']);

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

  const fromPacks = (bin: Buffer): RawObject | null => {
    for (const [n, known] of packs) {
      let pack = known;
      if (pack === undefined) {
        try {
          pack = openPack(join(packDir, n), opened++);
        } catch {
          pack = null;
        }
        packs.set(n, pack);
      }
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
    refresh() {
      if (listedAt !== undefined) list();
    },
  };
}
