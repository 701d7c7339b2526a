/**
 * Object-id abbreviation as git 2.39 does it for `index` lines (core.abbrev unset = "auto"): the length
 * grows with the number of packed objects (7 below 2^14 objects, 8 up to 2^16, …), then grows further
 * until no other object in the repository (packed or loose) shares the prefix.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import * as git from 'isomorphic-git';
import type { Repo } from '../repo.js';

interface PackIndex {
  count: number;
  /** The sorted object names, 20 bytes each. */
  names: Buffer;
}

async function readPackIndex(repo: Repo, file: string): Promise<PackIndex | null> {
  const buf = (await repo.git.fs.promises.readFile(file)) as Buffer;
  if (buf.length < 8 + 1024) return null;
  if (buf.readUInt32BE(0) === 0xff744f63) {
    if (buf.readUInt32BE(4) !== 2) return null;
    const count = buf.readUInt32BE(8 + 255 * 4);
    return { count, names: buf.subarray(8 + 1024, 8 + 1024 + count * 20) };
  }
  // Version 1: fanout, then (offset, name) records of 24 bytes.
  const count = buf.readUInt32BE(255 * 4);
  const names = Buffer.alloc(count * 20);
  for (let i = 0; i < count; i++) buf.copy(names, i * 20, 1024 + i * 24 + 4, 1024 + i * 24 + 24);
  return { count, names };
}

/** Pack indexes of the repository, memoized by file name (packs never change once written). */
async function packIndexes(repo: Repo): Promise<PackIndex[]> {
  const dir = join(repo.gitdir, 'objects', 'pack');
  let files: string[];
  try {
    files = ((await repo.git.fs.promises.readdir(dir)) as string[]).filter((f) => f.endsWith('.idx')).sort();
  } catch {
    return [];
  }
  const memo = (repo.memo.get('diff:packidx') as Map<string, PackIndex | null> | undefined) ?? new Map<string, PackIndex | null>();
  repo.memo.set('diff:packidx', memo);
  const out: PackIndex[] = [];
  for (const f of files) {
    let idx = memo.get(f);
    if (idx === undefined) {
      try {
        idx = await readPackIndex(repo, join(dir, f));
      } catch {
        idx = null;
      }
      memo.set(f, idx);
    }
    if (idx) out.push(idx);
  }
  return out;
}

function commonHexPrefix(a: string, b: string): number {
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return i;
}

function nameAt(idx: PackIndex, i: number): string {
  return idx.names.toString('hex', i * 20, i * 20 + 20);
}

/** The longest hex prefix `oid` shares with a neighbour in a sorted pack index (itself excluded). */
function packNeighbourPrefix(idx: PackIndex, oid: string, raw: Buffer): number {
  let lo = 0;
  let hi = idx.count;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (idx.names.compare(raw, 0, 20, mid * 20, mid * 20 + 20) > 0) lo = mid + 1;
    else hi = mid;
  }
  let best = 0;
  const found = lo < idx.count && nameAt(idx, lo) === oid;
  const after = found ? lo + 1 : lo;
  if (after < idx.count) best = Math.max(best, commonHexPrefix(oid, nameAt(idx, after)));
  if (lo > 0) best = Math.max(best, commonHexPrefix(oid, nameAt(idx, lo - 1)));
  return best;
}

/** A folder modified within this long may change again within the same mtime: not remembered (git's racy rule). */
const RACY_MS = 3000;

/**
 * The names in a loose-object folder (`objects/ab`), remembered per repository until the folder's mtime
 * changes (an object added or removed changes it), so a call costs one stat per folder, not a listing.
 */
function looseListing(repo: Repo, dir: string): string[] {
  const abs = join(repo.gitdir, 'objects', dir);
  let memo = repo.memo.get('diff:loose') as Map<string, { mtime: number; names: string[] }> | undefined;
  if (!memo) {
    memo = new Map();
    repo.memo.set('diff:loose', memo);
  }
  let mtime: number;
  try {
    mtime = statSync(abs).mtimeMs;
  } catch {
    memo.delete(dir);
    return [];
  }
  const known = memo.get(dir);
  if (known?.mtime === mtime) return known.names;
  let names: string[];
  try {
    names = readdirSync(abs);
  } catch {
    names = [];
  }
  if (Date.now() - mtime > RACY_MS) memo.set(dir, { mtime, names });
  else memo.delete(dir);
  return names;
}

/**
 * Lists the repository's loose-object folders ahead (for the background warm-up), so that a first diff or
 * show abbreviates its ids without listing them; stops once `maxNames` names are held. Returns that count.
 */
export function listLooseFolders(repo: Repo, maxNames: number): number {
  let names = 0;
  for (let i = 0; i < 256 && names < maxNames; i++) names += looseListing(repo, i.toString(16).padStart(2, '0')).length;
  return names;
}

export interface Abbreviator {
  /** Works out the abbreviations of `oids` (reads loose-object folders as needed). */
  prefetch(oids: Iterable<string>): Promise<void>;
  /** The abbreviation of a prefetched id (others get the minimum length). */
  abbrev(oid: string): string;
}

/** An abbreviator for one tool call (loose-object listings are read once per call). */
export async function createAbbreviator(repo: Repo): Promise<Abbreviator> {
  let configured: number | null = null;
  try {
    const value = await git.getConfig({ ...repo.git, path: 'core.abbrev' });
    if (value !== undefined && value !== null && String(value) !== 'auto') {
      const text = String(value).toLowerCase();
      if (['no', 'false', 'off'].includes(text)) configured = 40;
      else if (/^\d+$/.test(text)) configured = Math.min(40, Math.max(4, Number(text)));
    }
  } catch {
    configured = null;
  }
  const packs = await packIndexes(repo);
  let minLen = configured ?? 7;
  if (configured === null) {
    const count = packs.reduce((n, p) => n + p.count, 0);
    const bits = count > 0 ? Math.floor(Math.log2(count)) + 1 : 1;
    minLen = Math.max(7, Math.ceil(bits / 2));
  }
  const loose = new Map<string, string[]>();
  const looseIn = (dir: string): string[] => {
    let names = loose.get(dir);
    if (!names) {
      names = looseListing(repo, dir);
      loose.set(dir, names);
    }
    return names;
  };
  const cache = new Map<string, string>();
  const abbreviate = async (oid: string): Promise<string> => {
    if (minLen >= 40) return oid;
    const raw = Buffer.from(oid, 'hex');
    let len = minLen;
    for (const p of packs) {
      const common = packNeighbourPrefix(p, oid, raw);
      if (common < 32 && common >= len) len = common + 1;
    }
    for (const name of looseIn(oid.slice(0, 2))) {
      const other = oid.slice(0, 2) + name;
      if (other === oid || other.length !== 40) continue;
      const common = commonHexPrefix(oid, other);
      if (common < 32 && common >= len) len = common + 1;
    }
    return oid.slice(0, len);
  };
  return {
    async prefetch(oids) {
      for (const oid of oids) if (!cache.has(oid)) cache.set(oid, await abbreviate(oid));
    },
    abbrev: (oid) => cache.get(oid) ?? oid.slice(0, minLen),
  };
}
