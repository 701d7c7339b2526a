/**
 * One pack of the repository (`objects/pack/pack-*.idx` + `.pack`), read as git reads it: the .idx is
 * loaded once, checked against its length and its pack's (packIndex.ts), and searched in place (fan-out
 * table, then a binary search over the sorted oids, no map of hex strings), the .pack is read in 1 MiB
 * windows as objects in them are needed (git's packed-git windows; the windows read stay loaded within the
 * memory budget, ../cacheBudget.ts), and an
 * object is inflated with node's zlib and its delta chain applied, with the objects met on the way kept in
 * the store's base cache (git's delta_base_cache).
 *
 * Nothing an entry claims is believed before it is checked: a header's size against --max-object-size
 * before its data is read, inflation bounded by that size (`maxOutputLength`), a delta's base size against
 * its base and its result size against the limit before anything is allocated, the chain's depth and the
 * call's inflated bytes against the call's ReadBudget (objectLimits.ts). What fails is an
 * ObjectStoreDamaged or an ObjectLimitExceeded: a final answer, never handed to another reader.
 */
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { constants, inflateSync } from 'node:zlib';
import { type CachePart, OBJECT_OVERHEAD } from '../cacheBudget.js';
import { charge, checkSize, deeper, ObjectLimitExceeded, ObjectStoreDamaged, type ReadBudget } from './objectLimits.js';
import { checkIndex, findIn, type PackIndex, sharedPrefixIn, startingWithIn } from './packIndex.js';

export type ObjectType = 'commit' | 'tree' | 'blob' | 'tag';

export interface RawObject {
  type: ObjectType;
  /** The object's content (no header). Shared: callers must not modify it. */
  data: Buffer;
}

/** What a pack needs from its store: the base cache and, for a ref-delta, any object by oid. */
export interface PackHost {
  /** Keys are numbers: the pack's `id` × 2^40 + the offset (packs are under 1 TiB). */
  cacheGet(key: number): RawObject | undefined;
  cacheSet(key: number, value: RawObject): void;
  /** A ref-delta's base, read within the same budget (null: no such object). */
  readOid(oid: string, budget: ReadBudget): RawObject | null;
  /** The pack windows read, by `<pack id>:<window>` (kept within the memory budget, dropped least recently used first). */
  windows: CachePart<Buffer>;
}

export interface PackFile {
  /** The pack's base name (`pack-<sha>`), for cache keys. */
  readonly name: string;
  /** How many objects the pack holds. */
  readonly count: number;
  /** The object's offset in the pack, or -1 when the pack does not have it. */
  find(oid: Buffer): number;
  /** How many leading hex digits `oid` shares with another object of the pack (at most 40). */
  sharedPrefix(oid: Buffer): number;
  /** Up to `limit` of the pack's object ids (hex) that start with the lowercase hex `prefix` (2 digits or more). */
  startingWith(prefix: string, limit: number): string[];
  /** The object `oid` at `offset`, deltas applied, within `budget`; throws ObjectStoreDamaged or ObjectLimitExceeded. */
  readAt(offset: number, oid: string, budget: ReadBudget): RawObject;
  /** The size of the object at `offset` (a delta's result), from its header alone; null when it cannot be told. */
  sizeAt(offset: number): number | null;
}

const TYPES: (ObjectType | undefined)[] = [undefined, 'commit', 'tree', 'blob', 'tag'];
/** Cache keys hold offsets below 2^40: a pack this large or larger is refused. */
const MAX_PACK_BYTES = 2 ** 40;
/** The pack is read in windows of this size (an object crossing a window's end is read on its own). */
const WINDOW = 1024 * 1024;
/** An entry's header (type and size, then an ofs-delta's offset or a ref-delta's oid) is at most this long. */
const HEADER_MAX = 10 + 10 + 20;
/** A delta's two sizes are within its first bytes: its zlib stream's first this many bytes are enough. */
const DELTA_HEAD = 512;

/** The most bytes a zlib stream of `size` bytes of content can take (stored blocks: 5 bytes per 64 KiB, plus header and slack). */
export function maxDeflated(size: number): number {
  return size + Math.ceil(size / 16_384) * 5 + 1024;
}

interface Entry {
  kind: number;
  size: number;
  /** Where the zlib stream starts, from the entry's offset. */
  dataAt: number;
  /** ofs-delta: the base's offset; ref-delta: -1. */
  baseOffset: number;
  baseOid?: string;
}

/** The header of the entry at `offset` whose first bytes are `raw`: kind, size, where its zlib data starts, its base; null when cut short. */
function parseHeader(raw: Buffer, offset: number): Entry | null {
  let p = 0;
  if (raw.length === 0) return null;
  let b = raw[p++]!;
  const kind = (b >> 4) & 7;
  let size = b & 15;
  let shift = 16;
  while (b & 0x80) {
    // A size needs at most 53 bits: a longer varint is damage, not a size.
    if (p >= raw.length || shift > 2 ** 49) return null;
    b = raw[p++]!;
    size += (b & 0x7f) * shift;
    shift *= 128;
  }
  if (kind === 6) {
    if (p >= raw.length) return null;
    b = raw[p++]!;
    let rel = b & 0x7f;
    while (b & 0x80) {
      if (p >= raw.length || rel > 2 ** 45) return null;
      b = raw[p++]!;
      rel = (rel + 1) * 128 + (b & 0x7f);
    }
    return { kind, size, dataAt: p, baseOffset: offset - rel };
  }
  if (kind === 7) {
    if (p + 20 > raw.length) return null;
    return { kind, size, dataAt: p + 20, baseOffset: -1, baseOid: raw.toString('hex', p, p + 20) };
  }
  return { kind, size, dataAt: p, baseOffset: -1 };
}

/** A delta's two leading varints (its base's size, its result's size) from `head`, its first bytes; null when cut short. */
function deltaSizes(head: Buffer): { base: number; result: number; at: number } | null {
  let p = 0;
  const varint = (): number | null => {
    let value = 0;
    let shift = 1;
    for (;;) {
      if (p >= head.length || shift > 2 ** 49) return null;
      const b = head[p++]!;
      value += (b & 0x7f) * shift;
      shift *= 128;
      if (!(b & 0x80)) return value;
    }
  };
  const base = varint();
  const result = base === null ? null : varint();
  return result === null ? null : { base: base!, result, at: p };
}

/** The delta's result size from the first bytes of its zlib stream; null when they do not tell it. */
function deltaResultSize(zlibStart: Buffer): number | null {
  try {
    // At most 1,032 bytes out per byte in: DELTA_HEAD bytes of stream cannot make more than this.
    const head = inflateSync(zlibStart, { finishFlush: constants.Z_SYNC_FLUSH, maxOutputLength: 1032 * DELTA_HEAD + 1024 });
    return deltaSizes(head)?.result ?? null;
  } catch {
    return null;
  }
}

/** Reads git's delta format: copy and insert instructions over `base`, sizes already checked (`sizes`). Throws on a malformed delta. */
function applyDelta(delta: Buffer, base: Buffer, sizes = deltaSizes(delta)): Buffer {
  if (!sizes) throw new Error('the delta is cut short');
  if (sizes.base !== base.length) throw new Error(`the delta is for a base of ${sizes.base} bytes, its base has ${base.length}`);
  const size = sizes.result;
  let p = sizes.at;
  const out = Buffer.allocUnsafe(size);
  let o = 0;
  while (p < delta.length) {
    const cmd = delta[p++]!;
    if (cmd & 0x80) {
      let off = 0;
      let len = 0;
      if (cmd & 0x01) off = delta[p++]!;
      if (cmd & 0x02) off |= delta[p++]! << 8;
      if (cmd & 0x04) off |= delta[p++]! << 16;
      if (cmd & 0x08) off += delta[p++]! * 0x1000000;
      if (cmd & 0x10) len = delta[p++]!;
      if (cmd & 0x20) len |= delta[p++]! << 8;
      if (cmd & 0x40) len |= delta[p++]! << 16;
      if (len === 0) len = 0x10000;
      if (p > delta.length || off + len > base.length || o + len > size) throw new Error('a delta copy is out of range');
      base.copy(out, o, off, off + len);
      o += len;
    } else if (cmd !== 0) {
      if (p + cmd > delta.length || o + cmd > size) throw new Error('a delta insert is out of range');
      delta.copy(out, o, p, p + cmd);
      p += cmd;
      o += cmd;
    } else {
      throw new Error('a delta has opcode 0');
    }
  }
  if (o !== size) throw new Error(`a delta builds ${o} bytes, not the ${size} it declares`);
  return out;
}

/** A chain's entry on the way down: where it is, its header, its zlib stream's end. */
interface Link {
  offset: number;
  entry: Entry;
  end: number;
}

/**
 * An open pack: `idxBytes` (the file `idxFile`, `shownAs` in messages) checked now (ObjectStoreDamaged when
 * it fails), the .pack read as needed; `host` gives the base cache and ref-delta bases.
 */
export function openPack(idxFile: string, shownAs: string, id: number, idxBytes: Buffer, host: PackHost): PackFile {
  const packFile = `${idxFile.slice(0, -4)}.pack`;
  const name = idxFile.slice(idxFile.lastIndexOf('/') + 1, -4);
  let packLength: number;
  try {
    packLength = statSync(packFile).size;
  } catch {
    throw new ObjectStoreDamaged(shownAs, 'its .pack is missing');
  }
  if (packLength >= MAX_PACK_BYTES) throw new ObjectLimitExceeded(`Refused: the pack ${name} is over 1 TiB, more than this server reads.`);
  const windows = host.windows;
  const readRange = (start: number, end: number): Buffer => {
    const out = Buffer.allocUnsafe(end - start);
    const fd = openSync(packFile, 'r');
    try {
      let got = 0;
      while (got < out.length) {
        const n = readSync(fd, out, got, out.length - got, start + got);
        if (n === 0) throw new ObjectStoreDamaged(shownAs, 'its .pack is shorter than its index says');
        got += n;
      }
    } finally {
      closeSync(fd);
    }
    return out;
  };
  /** The bytes [start, end) of the pack, from its windows (each read once) or, across a window's end, on their own. */
  const bytes = (start: number, end: number): Buffer => {
    const w = Math.floor(start / WINDOW);
    if (end > (w + 1) * WINDOW) return readRange(start, end);
    const key = `${id}:${w}`;
    let win = windows.get(key);
    if (!win) {
      win = readRange(w * WINDOW, Math.min((w + 1) * WINDOW, packLength));
      windows.set(key, win, win.length + OBJECT_OVERHEAD);
    }
    return win.subarray(start - w * WINDOW, end - w * WINDOW);
  };
  const ix: PackIndex = checkIndex(idxBytes, shownAs, packLength, packLength >= 12 ? bytes(0, 12) : Buffer.alloc(0));
  /** Every object's start, sorted, then the trailer's: an object's zlib stream ends before the next start. */
  let starts: Float64Array | undefined;
  const endOf = (offset: number): number => {
    if (!starts) {
      starts = new Float64Array(ix.count + 1);
      for (let i = 0; i < ix.count; i++) starts[i] = ix.offsetOf(i);
      starts[ix.count] = packLength - 20;
      starts.sort();
    }
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (starts[mid]! <= offset) lo = mid + 1;
      else hi = mid;
    }
    return starts[lo]! > offset ? starts[lo]! : packLength - 20;
  };
  /** The header of the entry at `offset` (read from its first bytes only), and where its zlib stream ends. */
  const linkAt = (offset: number, oid: string): Link => {
    const end = endOf(offset);
    const entry = parseHeader(bytes(offset, Math.min(end, offset + HEADER_MAX)), offset);
    if (!entry) throw new ObjectStoreDamaged(oid, `the pack entry at offset ${offset} of ${name} has a header cut short`);
    return { offset, entry, end };
  };
  /** The zlib stream of `link`, inflated to exactly the size its header gives (never more: `maxOutputLength`). */
  const inflate = (link: Link, oid: string, budget: ReadBudget): Buffer => {
    const { entry: e, offset } = link;
    const start = offset + e.dataAt;
    const end = Math.min(link.end, start + maxDeflated(e.size));
    if (end <= start) throw new ObjectStoreDamaged(oid, `the pack entry at offset ${offset} of ${name} has no data`);
    charge(budget, e.size, oid);
    let data: Buffer;
    try {
      // Output space for exactly the size the header gives: no 16 KiB chunk per object (node's default),
      // which a small object kept alive in the caches would hold on to, and no byte past it.
      data = inflateSync(bytes(start, end), { chunkSize: Math.max(64, e.size + 1), maxOutputLength: Math.max(1, e.size) });
    } catch (error) {
      const why =
        (error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE'
          ? `it inflates to more than the ${e.size} bytes its header declares`
          : `its zlib stream is corrupt (${(error as Error).message})`;
      throw new ObjectStoreDamaged(oid, why);
    }
    if (data.length !== e.size)
      throw new ObjectStoreDamaged(oid, `it inflates to ${data.length} bytes, not the ${e.size} its header declares`);
    return data;
  };
  const key = (offset: number) => id * 2 ** 40 + offset;
  return {
    name,
    count: ix.count,
    find: (oid) => findIn(ix, oid),
    startingWith: (prefix, limit) => startingWithIn(ix, prefix, limit),
    sharedPrefix: (oid) => sharedPrefixIn(ix, oid),
    sizeAt(offset) {
      try {
        const end = endOf(offset);
        // The header, and for a delta the start of its zlib stream: enough for the two sizes it begins with.
        const head = bytes(offset, Math.min(end, offset + HEADER_MAX + DELTA_HEAD));
        const e = parseHeader(head, offset);
        if (!e) return null;
        if (TYPES[e.kind]) return e.size;
        return e.kind === 6 || e.kind === 7 ? deltaResultSize(head.subarray(e.dataAt)) : null;
      } catch {
        return null;
      }
    },
    readAt(offset, oid, budget) {
      // Down the chain (headers only) to a cached object or a whole one, then the deltas back up, caching each result.
      const chain: Link[] = [];
      let base: RawObject | null = null;
      let at = offset;
      for (;;) {
        const cached = host.cacheGet(key(at));
        if (cached) {
          base = cached;
          break;
        }
        const link = linkAt(at, oid);
        const e = link.entry;
        const type = TYPES[e.kind];
        if (type) {
          checkSize(budget, type, oid, e.size, chain.length > 0);
          base = { type, data: inflate(link, oid, budget) };
          if (chain.length > 0) host.cacheSet(key(at), base);
          break;
        }
        if (e.kind !== 6 && e.kind !== 7) throw new ObjectStoreDamaged(oid, `the pack entry at offset ${at} of ${name} has type ${e.kind}`);
        deeper(budget);
        chain.push(link);
        if (e.kind === 6) {
          if (e.baseOffset < 12 || e.baseOffset >= at) {
            throw new ObjectStoreDamaged(oid, `the delta at offset ${at} of ${name} names a base at ${e.baseOffset}, not before it`);
          }
          at = e.baseOffset;
        } else {
          base = host.readOid(e.baseOid!, budget);
          if (!base) throw new ObjectStoreDamaged(oid, `the base ${e.baseOid} of its delta is missing`);
          break;
        }
      }
      for (let i = chain.length - 1; i >= 0; i--) {
        const link = chain[i]!;
        // A delta's own instructions are never larger than what the limit lets it build.
        checkSize(budget, base.type, oid, link.entry.size, true);
        const delta = inflate(link, oid, budget);
        const sizes = deltaSizes(delta);
        if (!sizes) throw new ObjectStoreDamaged(oid, `the delta at offset ${link.offset} of ${name} is cut short`);
        if (sizes.base !== base.data.length) {
          throw new ObjectStoreDamaged(
            oid,
            `the delta at offset ${link.offset} of ${name} is for a base of ${sizes.base} bytes, its base has ${base.data.length}`,
          );
        }
        checkSize(budget, base.type, oid, sizes.result, i > 0);
        charge(budget, sizes.result, oid);
        let data: Buffer;
        try {
          data = applyDelta(delta, base.data, sizes);
        } catch (error) {
          throw new ObjectStoreDamaged(oid, `the delta at offset ${link.offset} of ${name} is malformed: ${(error as Error).message}`);
        }
        base = { type: base.type, data };
        host.cacheSet(key(link.offset), base);
      }
      return base;
    },
  };
}
