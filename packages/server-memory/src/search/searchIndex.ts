/**
 * The index behind `search_nodes`. It answers exactly what the reference's scan answers — an
 * entity matches when `query.toLowerCase()` is a substring of `name.toLowerCase()`,
 * `entityType.toLowerCase()` or one observation's `toLowerCase()` — in entity order, without
 * visiting every entity:
 *
 * - Each entity's fields are lower-cased (field by field, as the reference does) and joined by
 *   `\0` into its *text*; texts are kept in blocks of 4096 entities, one string per block.
 * - Trigram posting lists (`postings.ts`) give candidates for queries of 3+ characters: an entity
 *   holding the query holds each of its trigrams. Every candidate is then checked with the real
 *   substring test on its text, so hash collisions and stale postings only cost time.
 * - Shorter queries scan the block strings with `indexOf` (no per-entity work between hits).
 * - A query holding `\0` is compared field by field (the separator must not match).
 *
 * Nothing is built while a file loads: the base is built on the first search (or by `prepare`, when
 * the store is idle after a load), over every entity at once. After that, entities a write adds are
 * indexed by the next search (their text in `fresh`, their trigrams in `DeltaPostings`), so a write
 * does no index work for them; a write that adds observations to an indexed entity adds their
 * trigrams; deletions leave stale postings behind. When the changes since the build outgrow a share
 * of the base, the next search rebuilds it.
 */
import { BasePostings, DeltaPostings, type IndexText } from './postings.js';
import { bucketsOf, SEP, tableBits } from './trigrams.js';

/** What the index reads from an entity (its observations through `observationsOf`); `sid` is the index's own (assigned by `add`). */
export interface Searchable {
  name: string;
  entityType: string;
  sid: number;
}

/** Tuning knobs; the defaults suit every size. Tests set them low to reach every path with small graphs. */
export interface SearchIndexOptions {
  /** Entities per block string: `2^blockBits` (default 12). */
  blockBits?: number;
  /** The base is rebuilt once more than this many entities changed since it was built, or 1 in 8 (default 2048). */
  minStaleEntities?: number;
  /** The base is rebuilt once more than this many postings were added since, or 1 in 8 of its own (default 65536). */
  minStalePostings?: number;
  /** Bitsets for common trigrams from this many entities on (default 256). */
  minDenseEntities?: number;
  /** Deleted entities leave holes; past this many, and more than live ones, the index is dropped and the rest renumbered (default 1024). */
  minHoles?: number;
}

/** Below this many candidates the remaining posting lists are not worth checking: the substring test decides. */
const FEW_CANDIDATES = 8;

interface Base {
  text: IndexText;
  postings: BasePostings;
}

/** An entity's searchable text: its lower-cased fields joined by `\0`. */
function textOf(e: Searchable, observations: readonly string[]): string {
  let text = `${e.name.toLowerCase()}${SEP}${e.entityType.toLowerCase()}`;
  for (const o of observations) text += SEP + o.toLowerCase();
  return text;
}

export class SearchIndex<T extends Searchable> {
  private readonly blockBits: number;
  private readonly minStaleEntities: number;
  private readonly minStalePostings: number;
  private readonly minDenseEntities: number;
  private readonly minHoles: number;
  /** Entities by `sid`, in entity order (`undefined`: deleted since the last build). */
  private slots: (T | undefined)[] = [];
  private live = 0;
  private base: Base | undefined;
  /** Current text of the entities created or changed since the build (it overrides their text in the base). */
  private readonly fresh = new Map<number, string>();
  private delta = new DeltaPostings();
  private deadSinceBuild = 0;
  /**
   * Entities from this `sid` on were added since the index last looked: their text and postings are
   * computed by the next search (`catchUp`), not by the write that added them.
   */
  private indexed = 0;

  /** `observationsOf` reads an entity's observations (the graph keeps some in their file line until needed). */
  constructor(
    private readonly observationsOf: (e: T) => readonly string[],
    options: SearchIndexOptions = {},
  ) {
    this.blockBits = options.blockBits ?? 12;
    this.minStaleEntities = options.minStaleEntities ?? 2048;
    this.minStalePostings = options.minStalePostings ?? 1 << 16;
    this.minDenseEntities = options.minDenseEntities ?? 256;
    this.minHoles = options.minHoles ?? 1024;
  }

  /** Appends an entity (after every other). Its text is indexed by the next search. */
  add(e: T): void {
    e.sid = this.slots.length;
    this.slots.push(e);
    this.live++;
  }

  /** `e` has these new observations (already in `e.observations`). */
  grew(e: T, added: readonly string[]): void {
    if (!this.base || e.sid >= this.indexed) return; // not indexed yet: the next search reads its current text
    let text = this.textAt(e.sid);
    for (const o of added) {
      const lower = o.toLowerCase();
      text += SEP + lower;
      this.delta.add(e.sid, bucketsOf(lower, this.base.postings.shift));
    }
    this.fresh.set(e.sid, text);
  }

  /** `e` lost observations: its postings still cover it, only its text changes. */
  shrank(e: T): void {
    if (!this.base || e.sid >= this.indexed) return;
    this.fresh.set(e.sid, textOf(e, this.observationsOf(e)));
  }

  remove(e: T): void {
    if (this.slots[e.sid] !== e) return;
    this.slots[e.sid] = undefined;
    this.live--;
    this.fresh.delete(e.sid);
    this.deadSinceBuild++;
    // Many holes and no search to rebuild the index: drop it and renumber (the next search builds it again).
    if (this.slots.length - this.live > Math.max(this.minHoles, this.live)) this.renumber();
  }

  /** How many entities there are. */
  get size(): number {
    return this.live;
  }

  /** The entities in order. */
  *entities(): IterableIterator<T> {
    for (const e of this.slots) if (e) yield e;
  }

  /** The entities matching `query` as the reference's scan does, in entity order. */
  search(query: string): T[] {
    const q = query.toLowerCase();
    if (q.length === 0) return this.all();
    if (q.includes(SEP)) return this.scanFields(q);
    const base = this.ready();
    return q.length < 3 ? this.scanText(base, q) : this.lookup(base, q);
  }

  /** Builds (or rebuilds, when stale) the index now rather than on the next search, e.g. while the process is idle. */
  prepare(): void {
    this.ready();
  }

  /** Bytes held by the index beyond the entities themselves (block texts counted as one byte per character). */
  get bytes(): number {
    if (!this.base) return 0;
    const { text, postings } = this.base;
    let chars = 0;
    for (const b of text.blocks) chars += b.length;
    return chars + text.start.byteLength + text.end.byteLength + postings.bytes + this.slots.length * 8;
  }

  // -------------------------------------------------------------------------------------------

  private ready(): Base {
    const base = this.base;
    if (!base || this.stale(base)) return this.build();
    this.catchUp(base);
    return this.stale(base) ? this.build() : base;
  }

  /** Indexes the entities added since the last search: their text, and their postings in the delta. */
  private catchUp(base: Base): void {
    for (let sid = this.indexed; sid < this.slots.length; sid++) {
      const e = this.slots[sid];
      if (!e) continue;
      const text = textOf(e, this.observationsOf(e));
      this.fresh.set(sid, text);
      this.delta.add(sid, bucketsOf(text, base.postings.shift));
    }
    this.indexed = this.slots.length;
  }

  private stale(base: Base): boolean {
    const changed = this.fresh.size + this.deadSinceBuild + (this.slots.length - this.indexed);
    return (
      changed > Math.max(this.minStaleEntities, this.live >> 3) ||
      this.delta.total > Math.max(this.minStalePostings, base.postings.total >> 3)
    );
  }

  /** Numbers the live entities densely (same order), without an index. */
  private renumber(): T[] {
    const entities: T[] = [];
    for (const e of this.slots) {
      if (!e) continue;
      e.sid = entities.length;
      entities.push(e);
    }
    this.slots = entities;
    this.indexed = 0;
    this.base = undefined;
    this.fresh.clear();
    this.delta = new DeltaPostings();
    this.deadSinceBuild = 0;
    return entities;
  }

  /** Renumbers the live entities and indexes their text. */
  private build(): Base {
    const entities = this.renumber();
    const count = entities.length;
    const start = new Int32Array(count);
    const end = new Int32Array(count);
    const blocks: string[] = [];
    let chars = 0;
    for (let first = 0; first < count; first += 1 << this.blockBits) {
      const parts: string[] = [];
      let offset = 0;
      for (let sid = first; sid < Math.min(count, first + (1 << this.blockBits)); sid++) {
        const e = entities[sid]!;
        start[sid] = offset;
        const name = e.name.toLowerCase();
        const type = e.entityType.toLowerCase();
        parts.push(name, type);
        offset += name.length + type.length + 2;
        for (const o of this.observationsOf(e)) {
          const lower = o.toLowerCase();
          parts.push(lower);
          offset += lower.length + 1;
        }
        end[sid] = offset - 1;
      }
      const block = parts.join(SEP);
      chars += block.length;
      blocks.push(block);
    }
    const text: IndexText = { blocks, blockBits: this.blockBits, start, end, count };
    this.base = { text, postings: BasePostings.build(text, tableBits(chars), this.minDenseEntities) };
    this.indexed = count;
    return this.base;
  }

  /** The current text of entity `sid`. */
  private textAt(sid: number): string {
    const fresh = this.fresh.get(sid);
    if (fresh !== undefined) return fresh;
    const { text } = this.base!;
    return text.blocks[sid >> this.blockBits]!.slice(text.start[sid], text.end[sid]);
  }

  private all(): T[] {
    return [...this.entities()];
  }

  /** A query holding the separator: field by field, as the reference does it. */
  private scanFields(q: string): T[] {
    const out: T[] = [];
    for (const e of this.slots) {
      if (
        e &&
        (e.name.toLowerCase().includes(q) ||
          e.entityType.toLowerCase().includes(q) ||
          this.observationsOf(e).some((o) => o.toLowerCase().includes(q)))
      )
        out.push(e);
    }
    return out;
  }

  /** Short queries: `indexOf` over each block, then each fresh text. */
  private scanText({ text }: Base, q: string): T[] {
    const ids: number[] = [];
    for (let k = 0; k < text.blocks.length; k++) {
      const block = text.blocks[k]!;
      const first = k << this.blockBits;
      const last = Math.min(text.count, first + (1 << this.blockBits)) - 1;
      let lo = first;
      let at = block.indexOf(q);
      while (at !== -1) {
        // The entity holding `at`: the last one starting at or before it (a match never spans a `\0`).
        let hi = last;
        while (lo < hi) {
          const mid = (lo + hi + 1) >>> 1;
          if (text.start[mid]! <= at) lo = mid;
          else hi = mid - 1;
        }
        if (this.slots[lo] && !this.fresh.has(lo)) ids.push(lo);
        if (lo === last) break;
        lo++;
        at = block.indexOf(q, text.start[lo]);
      }
    }
    return this.withFresh(ids, (t) => t.includes(q));
  }

  /** Queries of 3+ characters: intersect the posting lists of its trigrams, then test each candidate. */
  private lookup({ postings }: Base, q: string): T[] {
    const delta = this.delta;
    const buckets = bucketsOf(q, postings.shift)
      .map((h) => ({ h, size: postings.size(h) + delta.size(h) }))
      .sort((a, b) => a.size - b.size);
    const ids: number[] = [];
    if (buckets[0]!.size > 0) {
      const { h } = buckets[0]!;
      postings.collect(h, ids);
      const extra = delta.get(h);
      if (extra) {
        for (const sid of extra) ids.push(sid);
        ids.sort((a, b) => a - b);
      }
    }
    let candidates = ids;
    for (let i = 1; i < buckets.length && candidates.length > FEW_CANDIDATES; i++) {
      const { h } = buckets[i]!;
      candidates = candidates.filter((id) => postings.has(h, id) || delta.has(h, id));
    }
    const out: T[] = [];
    let previous = -1;
    for (const sid of candidates) {
      if (sid === previous) continue;
      previous = sid;
      const e = this.slots[sid];
      if (e && this.textAt(sid).includes(q)) out.push(e);
    }
    return out;
  }

  /** The entities of the base `ids` (ascending) plus the fresh ones whose text passes `test`, in entity order. */
  private withFresh(ids: number[], test: (text: string) => boolean): T[] {
    const freshIds: number[] = [];
    for (const [sid, t] of this.fresh) if (test(t)) freshIds.push(sid);
    if (freshIds.length > 0) {
      for (const sid of freshIds) ids.push(sid);
      ids.sort((a, b) => a - b);
    }
    const out: T[] = [];
    for (const sid of ids) out.push(this.slots[sid]!);
    return out;
  }
}
