/**
 * One pack of the repository (`objects/pack/pack-*.idx` + `.pack`), read as git reads it: the .idx is
 * loaded once and searched in place (fan-out table, then a binary search over the sorted oids, no map of
 * hex strings), the .pack is read in 1 MiB windows as objects in them are needed (git's packed-git
 * windows; the windows read stay loaded), and an object is inflated with node's zlib and its delta chain
 * applied, with the objects met on the way kept in the store's base cache (git's delta_base_cache).
 * Anything this reader does not understand (an .idx of version 1, a corrupt entry) makes it answer
 * null, so the caller falls back to isomorphic-git and its errors.
 */
import { closeSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { constants, inflateSync } from 'node:zlib';

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
  readOid(oid: string): RawObject | null;
}

export interface PackFile {
  /** The pack's base name (`pack-<sha>`), for cache keys. */
  readonly name: string;
  /** The object's offset in the pack, or -1 when the pack does not have it. */
  find(oid: Buffer): number;
  /** Up to `limit` of the pack's object ids (hex) that start with the lowercase hex `prefix` (2 digits or more). */
  startingWith(prefix: string, limit: number): string[];
  /** The object at `offset`, deltas applied, or null when it cannot be read here. */
  readAt(offset: number, host: PackHost): RawObject | null;
  /** The size of the object at `offset` (a delta's result), from its header alone; null when not readable here. */
  sizeAt(offset: number): number | null;
}

const TYPES: (ObjectType | undefined)[] = [undefined, 'commit', 'tree', 'blob', 'tag'];
/** A pack this large or larger is left to isomorphic-git (cache keys hold offsets below 2^40). */
const MAX_PACK_BYTES = 2 ** 40;
/** The pack is read in windows of this size (an object crossing a window's end is read on its own). */
const WINDOW = 1024 * 1024;
const IDX_MAGIC = 0xff744f63;

interface Index {
  idx: Buffer;
  count: number;
  shaAt: number;
  offsetAt: number;
  largeAt: number;
}

function loadIndex(file: string): Index | null {
  const idx = readFileSync(file);
  if (idx.length < 8 + 1024 || idx.readUInt32BE(0) !== IDX_MAGIC || idx.readUInt32BE(4) !== 2) return null;
  const count = idx.readUInt32BE(8 + 255 * 4);
  const shaAt = 8 + 1024;
  const offsetAt = shaAt + 20 * count + 4 * count;
  return { idx, count, shaAt, offsetAt, largeAt: offsetAt + 4 * count };
}

function offsetOf(ix: Index, i: number): number {
  const small = ix.idx.readUInt32BE(ix.offsetAt + 4 * i);
  if ((small & 0x80000000) === 0) return small;
  const at = ix.largeAt + 8 * (small & 0x7fffffff);
  return ix.idx.readUInt32BE(at) * 0x1_0000_0000 + ix.idx.readUInt32BE(at + 4);
}

/** The entry at `offset` in its pack whose bytes (or their start) are `raw`, its header parsed: kind, size, where its zlib data starts, its base. */
function parseHeader(raw: Buffer, offset: number): Entry {
  let p = 0;
  let b = raw[p++]!;
  const kind = (b >> 4) & 7;
  let size = b & 15;
  let shift = 16;
  while (b & 0x80) {
    b = raw[p++]!;
    size += (b & 0x7f) * shift;
    shift *= 128;
  }
  if (kind === 6) {
    b = raw[p++]!;
    let rel = b & 0x7f;
    while (b & 0x80) {
      b = raw[p++]!;
      rel = (rel + 1) * 128 + (b & 0x7f);
    }
    return { kind, size, raw, dataAt: p, baseOffset: offset - rel };
  }
  if (kind === 7) return { kind, size, raw, dataAt: p + 20, baseOffset: -1, baseOid: raw.toString('hex', p, p + 20) };
  return { kind, size, raw, dataAt: p, baseOffset: -1 };
}

/** The delta's result size from the first bytes of its zlib stream (a delta starts with the base's size, then the result's). */
export function deltaResultSize(zlibStart: Buffer): number | null {
  let head: Buffer;
  try {
    head = inflateSync(zlibStart, { finishFlush: constants.Z_SYNC_FLUSH });
  } catch {
    return null;
  }
  let p = 0;
  const varint = (): number | null => {
    let value = 0;
    let shift = 1;
    for (;;) {
      if (p >= head.length) return null;
      const b = head[p++]!;
      value += (b & 0x7f) * shift;
      shift *= 128;
      if (!(b & 0x80)) return value;
    }
  };
  return varint() === null ? null : varint();
}

/** Reads git's delta format: copy and insert instructions over `base`. Throws on a malformed delta. */
export function applyDelta(delta: Buffer, base: Buffer): Buffer {
  let p = 0;
  const varint = (): number => {
    let value = 0;
    let shift = 1;
    let b: number;
    do {
      b = delta[p++]!;
      value += (b & 0x7f) * shift;
      shift *= 128;
    } while (b & 0x80 && p < delta.length);
    return value;
  };
  const baseSize = varint();
  if (baseSize !== base.length) throw new Error('delta base size mismatch');
  const size = varint();
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
      if (off + len > base.length || o + len > size) throw new Error('delta copy out of range');
      base.copy(out, o, off, off + len);
      o += len;
    } else if (cmd !== 0) {
      if (p + cmd > delta.length || o + cmd > size) throw new Error('delta insert out of range');
      delta.copy(out, o, p, p + cmd);
      p += cmd;
      o += cmd;
    } else {
      throw new Error('delta opcode 0');
    }
  }
  if (o !== size) throw new Error('delta result size mismatch');
  return out;
}

interface Entry {
  kind: number;
  size: number;
  /** The object's bytes in the pack: header, then the zlib stream. */
  raw: Buffer;
  /** Where the zlib stream starts in `raw`. */
  dataAt: number;
  /** ofs-delta: the base's offset; ref-delta: -1. */
  baseOffset: number;
  baseOid?: string;
}

/** An open pack: `idxFile` is loaded now (null when it is not an .idx this reader knows), the .pack on first read. */
export function openPack(idxFile: string, id: number): PackFile | null {
  const ix = loadIndex(idxFile);
  if (!ix) return null;
  const packFile = `${idxFile.slice(0, -4)}.pack`;
  const name = idxFile.slice(idxFile.lastIndexOf('/') + 1, -4);
  /** The pack's length once checked (a PACK header, a size this reader takes), or null when it cannot be read here. */
  let packLength: number | null | undefined;
  const windows = new Map<number, Buffer>();
  /** Every object's start, sorted, then the trailer's: an object's zlib stream ends before the next start. */
  let starts: Float64Array | undefined;
  const readRange = (start: number, end: number): Buffer => {
    const out = Buffer.allocUnsafe(end - start);
    const fd = openSync(packFile, 'r');
    try {
      let got = 0;
      while (got < out.length) {
        const n = readSync(fd, out, got, out.length - got, start + got);
        if (n === 0) throw new Error('pack shorter than its index says');
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
    let win = windows.get(w);
    if (!win) {
      win = readRange(w * WINDOW, Math.min((w + 1) * WINDOW, packLength!));
      windows.set(w, win);
    }
    return win.subarray(start - w * WINDOW, end - w * WINDOW);
  };
  const checkPack = (): number | null => {
    if (packLength !== undefined) return packLength;
    try {
      const size = statSync(packFile).size;
      packLength = size;
      packLength = size < MAX_PACK_BYTES && size >= 32 && bytes(0, 4).toString('latin1') === 'PACK' ? size : null;
    } catch {
      packLength = null;
    }
    return packLength;
  };
  const endOf = (offset: number, length: number): number => {
    if (!starts) {
      starts = new Float64Array(ix.count + 1);
      for (let i = 0; i < ix.count; i++) starts[i] = offsetOf(ix, i);
      starts[ix.count] = length - 20;
      starts.sort();
    }
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (starts[mid]! <= offset) lo = mid + 1;
      else hi = mid;
    }
    return starts[lo]! > offset ? starts[lo]! : length - 20;
  };
  /** The object at `offset`: its header parsed, its bytes (header and zlib stream) as `raw`. */
  const entryAt = (offset: number, length: number): Entry => {
    return parseHeader(bytes(offset, endOf(offset, length)), offset);
  };
  const inflate = (e: Entry): Buffer => {
    // Output space for exactly the size the header gives (one byte more, so zlib ends in it): no 16 KiB
    // chunk per object (node's default), which a small object kept alive in the caches would hold on to.
    const data = inflateSync(e.raw.subarray(e.dataAt), { chunkSize: Math.max(64, e.size + 1) });
    if (data.length !== e.size) throw new Error('inflated size mismatch');
    return data;
  };
  const key = (offset: number) => id * 2 ** 40 + offset;
  return {
    name,
    find(oid) {
      const idx = ix.idx;
      let lo = oid[0] === 0 ? 0 : idx.readUInt32BE(8 + 4 * (oid[0]! - 1));
      let hi = idx.readUInt32BE(8 + 4 * oid[0]!);
      // The id's first four bytes as a number decide most steps of the search without a call into Buffer.compare.
      const head = oid.readUInt32BE(0);
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        const at = ix.shaAt + 20 * mid;
        const there = idx.readUInt32BE(at);
        // Below 0: the entry at `mid` sorts before the id.
        const c = there !== head ? there - head : idx.compare(oid, 4, 20, at + 4, at + 20);
        if (c === 0) return offsetOf(ix, mid);
        if (c < 0) lo = mid + 1;
        else hi = mid;
      }
      return -1;
    },
    startingWith(prefix, limit) {
      const idx = ix.idx;
      const whole = prefix.length >> 1;
      const key = Buffer.from(prefix.length % 2 === 0 ? prefix : `${prefix}0`, 'hex');
      const keyEnd = key.length;
      const first = key[0]!;
      // The first id not below the prefix padded with zeros (the smallest id it could start), in its fan-out bucket.
      let lo = first === 0 ? 0 : idx.readUInt32BE(8 + 4 * (first - 1));
      const end = idx.readUInt32BE(8 + 4 * first);
      let hi = end;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        const at = ix.shaAt + 20 * mid;
        if (idx.compare(key, 0, keyEnd, at, at + keyEnd) < 0) lo = mid + 1;
        else hi = mid;
      }
      const out: string[] = [];
      for (let i = lo; i < end && out.length < limit; i++) {
        const at = ix.shaAt + 20 * i;
        if (idx.compare(key, 0, whole, at, at + whole) !== 0) break;
        if (whole < keyEnd && idx[at + whole]! >> 4 !== key[whole]! >> 4) break;
        out.push(idx.toString('hex', at, at + 20));
      }
      return out;
    },
    sizeAt(offset) {
      const length = checkPack();
      if (length === null) return null;
      try {
        const end = endOf(offset, length);
        // The header, and for a delta the start of its zlib stream: enough for the two sizes it begins with.
        const head = bytes(offset, Math.min(end, offset + 512));
        const { kind, size, dataAt } = parseHeader(head, offset);
        if (TYPES[kind]) return size;
        return kind === 6 || kind === 7 ? deltaResultSize(head.subarray(dataAt)) : null;
      } catch {
        return null;
      }
    },
    readAt(offset, host) {
      const length = checkPack();
      if (length === null) return null;
      try {
        // Down the chain to a cached object or a whole one, then the deltas back up, caching each result.
        const chain: { offset: number; entry: Entry }[] = [];
        let base: RawObject | null = null;
        let at = offset;
        for (;;) {
          const cached = host.cacheGet(key(at));
          if (cached) {
            base = cached;
            break;
          }
          const e = entryAt(at, length);
          const type = TYPES[e.kind];
          if (type) {
            base = { type, data: inflate(e) };
            if (chain.length > 0) host.cacheSet(key(at), base);
            break;
          }
          chain.push({ offset: at, entry: e });
          if (e.kind === 6) {
            if (e.baseOffset <= 0 || e.baseOffset >= at || chain.length > 10_000) return null;
            at = e.baseOffset;
          } else if (e.kind === 7) {
            base = host.readOid(e.baseOid!);
            if (!base) return null;
            break;
          } else {
            return null;
          }
        }
        for (let i = chain.length - 1; i >= 0; i--) {
          const { offset: o, entry } = chain[i]!;
          base = { type: base.type, data: applyDelta(inflate(entry), base.data) };
          host.cacheSet(key(o), base);
        }
        return base;
      } catch {
        return null;
      }
    },
  };
}
