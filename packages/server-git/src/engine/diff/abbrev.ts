/**
 * Object-id abbreviation as git 2.39 does it for `index` lines (core.abbrev unset = "auto"): the length
 * grows with the number of packed objects (7 below 2^14 objects, 8 up to 2^16, …), then grows further
 * until no other object in the repository (packed or loose) shares the prefix.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import * as git from 'isomorphic-git';
import type { Repo } from '../repo.js';

function commonHexPrefix(a: string, b: string): number {
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return i;
}

/** A folder modified within this long may change again within the same mtime: not remembered (git's racy rule). */
const RACY_MS = 3000;

/**
 * The names in a loose-object folder (`objects/ab`), remembered per repository until the folder's mtime
 * changes (an object added or removed changes it), so a call costs one stat per folder, not a listing.
 */
function looseListing(repo: Repo, dir: string): string[] {
  const abs = join(repo.gitdir, 'objects', dir);
  let memo = repo.state.looseNames;
  if (!memo) {
    memo = new Map();
    repo.state.looseNames = memo;
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
  let minLen = configured ?? 7;
  const packed = repo.objects.packedCount();
  if (configured === null) {
    const bits = packed > 0 ? Math.floor(Math.log2(packed)) + 1 : 1;
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
  // Synchronous (every read here is), so a patch of many files does not pay a promise per id.
  const abbreviate = (oid: string): string => {
    if (minLen >= 40) return oid;
    let len = minLen;
    if (packed > 0) {
      const common = repo.objects.packedSharedPrefix(oid);
      if (common < 32 && common >= len) len = common + 1;
    }
    // A loose object shares the folder's two digits; only names whose next digits match can lengthen it.
    const rest = oid.slice(2);
    const first = rest.charCodeAt(0);
    for (const name of looseIn(oid.slice(0, 2))) {
      if (name.charCodeAt(0) !== first || name.length !== 38 || name === rest) continue;
      const common = 2 + commonHexPrefix(rest, name);
      if (common < 32 && common >= len) len = common + 1;
    }
    return oid.slice(0, len);
  };
  return {
    async prefetch(oids) {
      for (const oid of oids) if (!cache.has(oid)) cache.set(oid, abbreviate(oid));
    },
    abbrev: (oid) => cache.get(oid) ?? oid.slice(0, minLen),
  };
}
