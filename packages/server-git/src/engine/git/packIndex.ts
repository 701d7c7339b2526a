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
      if ((small & 0x80000000) !== 0 && (small & 0x7fffffff) >= largeCount) throw damaged(`entry ${i} names a large offset it does not have`);
    }
    const offset = offsetOf(i);
    if (offset < 12 || offset >= packLength - 20) throw damaged(`entry ${i} has offset ${offset}, outside its pack of ${packLength} bytes`);
  }
  return { idx, count, fanAt, shaAt, shaStride, offsetOf };
}
