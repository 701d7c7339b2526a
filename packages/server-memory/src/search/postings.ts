/**
 * Posting lists: for each trigram bucket, the ids of the entities whose text holds a trigram of
 * that bucket, ascending. `BasePostings` is built at once over every entity (two passes, typed
 * arrays only); `DeltaPostings` takes what was written after that, one entity at a time.
 */
import { bucketOf } from './trigrams.js';

/** The entities' lower-cased text: entity `id` is `blocks[id >> blockBits].slice(start[id], end[id])`. */
export interface IndexText {
  blocks: string[];
  blockBits: number;
  start: Int32Array;
  end: Int32Array;
  count: number;
}

/**
 * Writes the distinct buckets of entity `id`'s trigrams into `out` and returns how many. `seen`
 * holds, per bucket, the last id written (ids come ascending within one pass).
 */
function bucketsOfEntity(text: IndexText, id: number, shift: number, seen: Int32Array, out: Int32Array): number {
  const s = text.blocks[id >> text.blockBits]!;
  const to = text.end[id]!;
  let i = text.start[id]!;
  if (to - i < 3) return 0;
  let count = 0;
  let b = s.charCodeAt(i);
  let c = s.charCodeAt(i + 1);
  for (i += 2; i < to; i++) {
    const a = b;
    b = c;
    c = s.charCodeAt(i);
    if (a === 0 || b === 0 || c === 0) continue;
    const h = bucketOf(a, b, c, shift);
    if (seen[h] === id) continue;
    seen[h] = id;
    out[count++] = h;
  }
  return count;
}

/** A bucket is kept as a bitset over all ids once it holds more than 1 in 32 of them (the bitset is then the smaller). */
const DENSE_RATIO = 32;

export class BasePostings {
  private constructor(
    readonly shift: number,
    /** Sparse buckets: ids `list[offsets[h], offsets[h + 1])`. */
    private readonly offsets: Int32Array,
    private readonly list: Int32Array,
    /** Dense buckets: `denseOf[h]` is the bitset's number (-1: sparse), its bits at `bits[k * words ...]`. */
    private readonly denseOf: Int32Array,
    private readonly denseSize: Int32Array,
    private readonly bits: Int32Array,
    private readonly words: number,
    /** Postings in all (sparse and dense), for the rebuild policy. */
    readonly total: number,
  ) {}

  /** Two passes over the text: count per bucket, then fill. */
  static build(text: IndexText, tableBits: number, minDenseEntities: number): BasePostings {
    const shift = 32 - tableBits;
    const buckets = 1 << tableBits;
    const seen = new Int32Array(buckets).fill(-1);
    const counts = new Int32Array(buckets);
    let longest = 0;
    for (let id = 0; id < text.count; id++) longest = Math.max(longest, text.end[id]! - text.start[id]!);
    const scratch = new Int32Array(longest);
    for (let id = 0; id < text.count; id++) {
      const k = bucketsOfEntity(text, id, shift, seen, scratch);
      for (let j = 0; j < k; j++) counts[scratch[j]!]!++;
    }
    const n = text.count;
    const words = (n + 31) >>> 5;
    const denseOf = new Int32Array(buckets).fill(-1);
    const offsets = new Int32Array(buckets + 1);
    let dense = 0;
    let sparse = 0;
    let total = 0;
    for (let h = 0; h < buckets; h++) {
      const count = counts[h]!;
      total += count;
      offsets[h] = sparse;
      if (count * DENSE_RATIO > n && n >= minDenseEntities) denseOf[h] = dense++;
      else sparse += count;
    }
    offsets[buckets] = sparse;
    const list = new Int32Array(sparse);
    const bits = new Int32Array(dense * words);
    const denseSize = new Int32Array(dense);
    const cursor = counts; // reused: the next free slot of each sparse bucket
    cursor.set(offsets.subarray(0, buckets));
    seen.fill(-1);
    for (let id = 0; id < text.count; id++) {
      const k = bucketsOfEntity(text, id, shift, seen, scratch);
      for (let j = 0; j < k; j++) {
        const h = scratch[j]!;
        const dense = denseOf[h]!;
        if (dense < 0) {
          list[cursor[h]!++] = id;
        } else {
          bits[dense * words + (id >>> 5)]! |= 1 << (id & 31);
          denseSize[dense]!++;
        }
      }
    }
    return new BasePostings(shift, offsets, list, denseOf, denseSize, bits, words, total);
  }

  size(h: number): number {
    const k = this.denseOf[h]!;
    return k < 0 ? this.offsets[h + 1]! - this.offsets[h]! : this.denseSize[k]!;
  }

  has(h: number, id: number): boolean {
    const k = this.denseOf[h]!;
    if (k >= 0) {
      const word = id >>> 5;
      return word < this.words && (this.bits[k * this.words + word]! & (1 << (id & 31))) !== 0;
    }
    return binarySearch(this.list, this.offsets[h]!, this.offsets[h + 1]!, id);
  }

  /** Appends the bucket's ids, ascending. */
  collect(h: number, out: number[]): void {
    const k = this.denseOf[h]!;
    if (k < 0) {
      for (let i = this.offsets[h]!, end = this.offsets[h + 1]!; i < end; i++) out.push(this.list[i]!);
      return;
    }
    const base = k * this.words;
    for (let w = 0; w < this.words; w++) {
      let word = this.bits[base + w]!;
      while (word !== 0) {
        const low = word & -word;
        out.push((w << 5) + 31 - Math.clz32(low));
        word ^= low;
      }
    }
  }

  /** Bytes held by the typed arrays. */
  get bytes(): number {
    return this.offsets.byteLength + this.list.byteLength + this.denseOf.byteLength + this.denseSize.byteLength + this.bits.byteLength;
  }
}

/** Postings written after the base was built: per bucket, a sorted array of ids without repeats. */
export class DeltaPostings {
  private readonly lists = new Map<number, number[]>();
  /** Postings in all, for the rebuild policy. */
  total = 0;

  add(id: number, buckets: readonly number[]): void {
    for (const h of buckets) {
      const list = this.lists.get(h);
      if (!list) {
        this.lists.set(h, [id]);
      } else {
        const last = list[list.length - 1]!;
        if (last === id) continue;
        if (last < id) {
          list.push(id);
        } else {
          // An entity older than the newest one in this bucket grew: insert in place (rare, and these lists are short).
          const at = lowerBound(list, 0, list.length, id);
          if (list[at] === id) continue;
          list.splice(at, 0, id);
        }
      }
      this.total++;
    }
  }

  size(h: number): number {
    return this.lists.get(h)?.length ?? 0;
  }

  has(h: number, id: number): boolean {
    const list = this.lists.get(h);
    return list !== undefined && binarySearch(list, 0, list.length, id);
  }

  get(h: number): readonly number[] | undefined {
    return this.lists.get(h);
  }
}

/** The first index in `list[from, to)` whose value is ≥ `id` (the list ascending). */
function lowerBound(list: ArrayLike<number>, from: number, to: number, id: number): number {
  let lo = from;
  let hi = to;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid]! < id) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function binarySearch(list: ArrayLike<number>, from: number, to: number, id: number): boolean {
  const at = lowerBound(list, from, to, id);
  return at < to && list[at] === id;
}
