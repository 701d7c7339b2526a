/**
 * The repository's objects as git reads them, synchronously and kept per repository between calls: the
 * packs first (each .idx loaded and checked once, on the first read that needs it, the `objects/pack`
 * listing kept until that folder's mtime changes), then the loose object, with no probe for a loose file
 * when a pack has the object. A miss looks at the pack folder again before answering null (a pack written
 * since, as git's reprepare_packed_git does). Abbreviated ids are expanded the same way: a prefix search in
 * each .idx and a listing of the one loose-object folder.
 *
 * This is the only reader of the repository's objects: isomorphic-git reads them through it too
 * (objectFs.ts). Each tool call reads through its own view (`forCall`), whose ReadBudget bounds what the
 * call may inflate (objectLimits.ts); a damaged object or pack, or one over a limit, throws, and the
 * error is final. Null means only "no such object". Not handled: alternates.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { type CacheParts, OBJECT_OVERHEAD, ownParts } from '../cacheBudget.js';
import { looseSize, readLoose } from './looseObject.js';
import { createBudget, type ObjectLimits, ObjectStoreDamaged, type ReadBudget } from './objectLimits.js';
import { openPack, type PackFile, type PackHost, type RawObject } from './packFile.js';

export type { ObjectType } from './packFile.js';

/** One call's view of the repository's objects (every read charged to the call's budget). */
export interface ObjectStore {
  /** The object by full lowercase oid, or null when there is none; throws ObjectStoreDamaged / ObjectLimitExceeded. */
  read(oid: string): RawObject | null;
  /**
   * The distinct object ids starting with the lowercase hex `prefix` (4 digits or more), packed or loose,
   * at most `limit` of them (2 tell a unique prefix from an ambiguous one).
   */
  startingWith(prefix: string, limit: number): string[];
  /** The object's size from its header alone (nothing inflated past it), or null (missing, or not readable). */
  size(oid: string): number | null;
  /** How many objects the packs hold, in all (git's abbreviation length grows with it). */
  packedCount(): number;
  /** How many leading hex digits `oid` shares with another packed object (0 when none shares one). */
  packedSharedPrefix(oid: string): number;
}

/** The repository's objects, shared by every call on it; `forCall` gives a call its budgeted view. */
export interface SharedObjectStore {
  forCall(limits: ObjectLimits): ObjectStore;
  /** Looks at `objects/pack` again if its mtime changed (once per call is enough). */
  refresh(): void;
}

const OID_RE = /^[0-9a-f]{40}$/;
const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';
/** A delta base (or result) larger than this is not kept (git's delta_base_cache is 96 MiB in all). */
const BASE_MAX_BYTES = 6 * 1024 * 1024;
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

/**
 * The object store of `gitdir`; delta bases and pack windows are kept in `held` (the repository's share of the
 * memory budget, ../cacheBudget.ts), least recently used dropped first.
 */
export function createObjectStore(gitdir: string, held: CacheParts = ownParts()): SharedObjectStore {
  const packDir = join(gitdir, 'objects', 'pack');
  let listedAt: number | undefined;
  /** Pack name → its reader, or the damage found when it was opened (thrown again on each use); in listing order. */
  let packs = new Map<string, PackFile | ObjectStoreDamaged | undefined>();
  const bases = held.part<RawObject>('bases');
  /** Each pack opened gets its own number, for the base cache's keys. */
  let opened = 0;

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
    const next = new Map<string, PackFile | ObjectStoreDamaged | undefined>();
    for (const n of names) next.set(n, packs.get(n));
    packs = next;
    return true;
  };

  const host: PackHost = {
    cacheGet: (key) => bases.get(String(key)),
    cacheSet(key, value) {
      if (value.data.length <= BASE_MAX_BYTES) bases.set(String(key), value, value.data.length + OBJECT_OVERHEAD);
    },
    windows: held.part<Buffer>('windows'),
    readOid: (oid, budget) => read(oid, budget),
  };

  /** The pack named `n` of the listing, opened (its .idx loaded and checked) on first use; throws its damage. */
  const packNamed = (n: string, known: PackFile | ObjectStoreDamaged | undefined): PackFile => {
    let pack = known;
    if (pack === undefined) {
      const file = join(packDir, n);
      const shownAs = `objects/pack/${n}`;
      try {
        pack = openPack(file, shownAs, opened++, readFileSync(file), host);
      } catch (error) {
        if (!(error instanceof ObjectStoreDamaged)) throw error;
        pack = error;
      }
      packs.set(n, pack);
    }
    if (pack instanceof ObjectStoreDamaged) throw pack;
    return pack;
  };

  const fromPacks = (bin: Buffer, oid: string, budget: ReadBudget): RawObject | null => {
    for (const [n, known] of packs) {
      const pack = packNamed(n, known);
      const offset = pack.find(bin);
      if (offset >= 0) return pack.readAt(offset, oid, budget);
    }
    return null;
  };

  function read(oid: string, budget: ReadBudget): RawObject | null {
    if (!OID_RE.test(oid)) return null;
    if (oid === EMPTY_TREE) return { type: 'tree', data: Buffer.alloc(0) };
    if (budget.open.includes(oid))
      throw new ObjectStoreDamaged(oid, 'its delta chain is a cycle (it is a delta on itself, or on a delta based on it)');
    if (budget.open.length === 0) budget.depth = 0;
    budget.open.push(oid);
    try {
      if (listedAt === undefined) list();
      const bin = Buffer.from(oid, 'hex');
      const found = fromPacks(bin, oid, budget) ?? readLoose(gitdir, oid, budget);
      if (found) return found;
      // Perhaps a pack written since the listing (a fetch, a repack that removed the loose file).
      return list() ? fromPacks(bin, oid, budget) : null;
    } finally {
      budget.open.pop();
    }
  }

  const size = (oid: string): number | null => {
    if (!OID_RE.test(oid)) return null;
    if (listedAt === undefined) list();
    const bin = Buffer.from(oid, 'hex');
    for (const [n, known] of packs) {
      const pack = packNamed(n, known);
      const offset = pack.find(bin);
      if (offset >= 0) return pack.sizeAt(offset);
    }
    return looseSize(gitdir, oid);
  };

  const startingWith = (prefix: string, limit: number): string[] => {
    if (!/^[0-9a-f]{4,40}$/.test(prefix)) return [];
    if (listedAt === undefined) list();
    const found = new Set<string>(looseStartingWith(gitdir, prefix));
    for (const [n, known] of packs) {
      if (found.size >= limit) break;
      for (const oid of packNamed(n, known).startingWith(prefix, limit)) found.add(oid);
    }
    return [...found].slice(0, limit);
  };

  const everyPack = (): PackFile[] => {
    if (listedAt === undefined) list();
    return [...packs].map(([n, known]) => packNamed(n, known));
  };
  const packedCount = (): number => everyPack().reduce((n, p) => n + p.count, 0);
  const packedSharedPrefix = (oid: string): number => {
    if (!OID_RE.test(oid)) return 0;
    const bin = Buffer.from(oid, 'hex');
    return everyPack().reduce((best, p) => Math.max(best, p.sharedPrefix(bin)), 0);
  };

  return {
    forCall(limits) {
      const budget = createBudget(limits);
      return { read: (oid) => read(oid, budget), size, startingWith, packedCount, packedSharedPrefix };
    },
    refresh() {
      if (listedAt !== undefined) list();
    },
  };
}
