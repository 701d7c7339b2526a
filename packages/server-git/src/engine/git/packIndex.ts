/**
 * A pack's `.idx`, version 1 or 2, loaded once and checked against its own length and its pack's before
 * any of it is believed (git's check_packed_git_idx): the header, a fan-out that never decreases, a
 * length that is exactly what the object count says (v2: 8 + 1024 + N × (20 + 4 + 4) + 8 × large offsets
 * + 40), large-offset indexes inside their table, every offset inside the pack, and the pack's own header
 * (`PACK`, version 2 or 3, the same object count). A file that fails is an ObjectStoreDamaged naming it,
 * before anything sized by its claims is allocated.
 */
import { ObjectStoreDamaged } from './objectLimits.js';

const IDX_MAGIC = 0xff744f63;
const FANOUT = 256 * 4;

export interface PackIndex {
  idx: Buffer;
  count: number;
  /** Where the fan-out table starts (8 in v2, 0 in v1). */
  fanAt: number;
  /** Where the i-th oid starts: `shaAt + shaStride × i`. */
  shaAt: number;
  shaStride: number;
  /** The i-th object's offset in the pack. */
  offsetOf(i: number): number;
}

/** The pack header's object count, or the reason it is not one: `head` is the pack's first 12 bytes. */
function packCount(head: Buffer): number | string {
  if (head.length < 12 || head.toString('latin1', 0, 4) !== 'PACK') return 'it does not start with PACK';
  const version = head.readUInt32BE(4);
  if (version !== 2 && version !== 3) return `it is of version ${version}`;
  return head.readUInt32BE(8);
}

/**
 * Checks `idx` (the file `name`, for messages) against its length and the pack's (`packLength` bytes,
 * starting with `packHead`), and answers how to read it; throws ObjectStoreDamaged otherwise.
 */
export function checkIndex(idx: Buffer, name: string, packLength: number, packHead: Buffer): PackIndex {
  const damaged = (reason: string) => new ObjectStoreDamaged(name, reason);
  const v2 = idx.length >= 8 && idx.readUInt32BE(0) === IDX_MAGIC;
  if (v2 && idx.readUInt32BE(4) !== 2) throw damaged(`it is an .idx of version ${idx.readUInt32BE(4)}`);
  const fanAt = v2 ? 8 : 0;
  if (idx.length < fanAt + FANOUT + 40) throw damaged(`it is ${idx.length} bytes, too short for an .idx`);
  let last = 0;
  for (let b = 0; b < 256; b++) {
    const n = idx.readUInt32BE(fanAt + 4 * b);
    if (n < last) throw damaged(`its fan-out decreases at entry ${b}`);
    last = n;
  }
  const count = last;
  const entry = v2 ? 28 : 24;
  const fixed = fanAt + FANOUT + count * entry + 40;
  const large = idx.length - fixed;
  if (large < 0 || large % 8 !== 0 || (!v2 && large !== 0) || large / 8 > count) {
    throw damaged(`its fan-out claims ${count} objects, which do not fit its ${idx.length} bytes`);
  }
  const packed = packCount(packHead);
  if (typeof packed === 'string') throw damaged(`its pack is not a pack: ${packed}`);
  if (packed !== count) throw damaged(`it lists ${count} objects, its pack ${packed}`);
  const shaAt = v2 ? fanAt + FANOUT : FANOUT + 4;
  const shaStride = v2 ? 20 : 24;
  const smallAt = v2 ? shaAt + 24 * count : FANOUT;
  const largeAt = smallAt + 4 * count;
  const largeCount = large / 8;
  const offsetOf = (i: number): number => {
    const small = idx.readUInt32BE(smallAt + (v2 ? 4 : 24) * i);
    if (!v2 || (small & 0x80000000) === 0) return small;
    const at = largeAt + 8 * (small & 0x7fffffff);
    return idx.readUInt32BE(at) * 0x1_0000_0000 + idx.readUInt32BE(at + 4);
  };
  for (let i = 0; i < count; i++) {
    if (v2) {
      const small = idx.readUInt32BE(smallAt + 4 * i);
      if ((small & 0x80000000) !== 0 && (small & 0x7fffffff) >= largeCount)
        throw damaged(`entry ${i} names a large offset it does not have`);
    }
    const offset = offsetOf(i);
    if (offset < 12 || offset >= packLength - 20) throw damaged(`entry ${i} has offset ${offset}, outside its pack of ${packLength} bytes`);
  }
  return { idx, count, fanAt, shaAt, shaStride, offsetOf };
}

/** The bucket of the fan-out table for ids starting with the byte `first`: [start, end). */
function bucket(ix: PackIndex, first: number): [number, number] {
  const start = first === 0 ? 0 : ix.idx.readUInt32BE(ix.fanAt + 4 * (first - 1));
  return [start, ix.idx.readUInt32BE(ix.fanAt + 4 * first)];
}

/** The first entry of [lo, hi) whose id is not below `key`'s first `keyEnd` bytes. */
function lowerBound(ix: PackIndex, key: Buffer, keyEnd: number, lo: number, hi: number): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const at = ix.shaAt + ix.shaStride * mid;
    // Below 0: the entry at `mid` sorts before the key.
    if (ix.idx.compare(key, 0, keyEnd, at, at + keyEnd) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The offset of the object `oid` (20 bytes), or -1 when the pack does not have it. */
export function findIn(ix: PackIndex, oid: Buffer): number {
  const idx = ix.idx;
  let [lo, hi] = bucket(ix, oid[0]!);
  // The id's first four bytes as a number decide most steps of the search without a call into Buffer.compare.
  const head = oid.readUInt32BE(0);
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const at = ix.shaAt + ix.shaStride * mid;
    const there = idx.readUInt32BE(at);
    // Below 0: the entry at `mid` sorts before the id.
    const c = there !== head ? there - head : idx.compare(oid, 4, 20, at + 4, at + 20);
    if (c === 0) return ix.offsetOf(mid);
    if (c < 0) lo = mid + 1;
    else hi = mid;
  }
  return -1;
}

/** Up to `limit` of the ids (hex) that start with the lowercase hex `prefix` (2 digits or more). */
export function startingWithIn(ix: PackIndex, prefix: string, limit: number): string[] {
  const idx = ix.idx;
  const whole = prefix.length >> 1;
  const key = Buffer.from(prefix.length % 2 === 0 ? prefix : `${prefix}0`, 'hex');
  const [start, end] = bucket(ix, key[0]!);
  // The first id not below the prefix padded with zeros (the smallest id it could start).
  const out: string[] = [];
  for (let i = lowerBound(ix, key, key.length, start, end); i < end && out.length < limit; i++) {
    const at = ix.shaAt + ix.shaStride * i;
    if (idx.compare(key, 0, whole, at, at + whole) !== 0) break;
    if (whole < key.length && idx[at + whole]! >> 4 !== key[whole]! >> 4) break;
    out.push(idx.toString('hex', at, at + 20));
  }
  return out;
}

function commonHexDigits(a: Buffer, aAt: number, b: Buffer, bAt: number): number {
  for (let i = 0; i < 20; i++) {
    const x = a[aAt + i]! ^ b[bAt + i]!;
    if (x !== 0) return 2 * i + (x >> 4 === 0 ? 1 : 0);
  }
  return 40;
}

/** How many leading hex digits `oid` shares with another id of the pack (its neighbours in sorted order). */
export function sharedPrefixIn(ix: PackIndex, oid: Buffer): number {
  const [start, end] = bucket(ix, oid[0]!);
  const lo = lowerBound(ix, oid, 20, start, end);
  const at = (i: number) => ix.shaAt + ix.shaStride * i;
  const found = lo < end && ix.idx.compare(oid, 0, 20, at(lo), at(lo) + 20) === 0;
  let best = 0;
  const after = found ? lo + 1 : lo;
  if (after < end) best = Math.max(best, commonHexDigits(oid, 0, ix.idx, at(after)));
  if (lo > start) best = Math.max(best, commonHexDigits(oid, 0, ix.idx, at(lo - 1)));
  return best;
}
