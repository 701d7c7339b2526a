/**
 * Relations by endpoint, without a list object per name: each relation is linked into a chain for
 * its `from` and one for its `to` (a self-relation into one). The head of a name's chain is held by
 * the entity of that name (`ChainHolder`: the graph finds it by name anyway), or, for a name no
 * entity has (a dangling relation), in a map here. Adding and removing are O(1); no key string is
 * built per relation, and loading a file adds no map entry per entity. An equal relation is found by
 * walking the two chains of its ends side by side: it lies in both, so the walk stops when the
 * shorter one ends (a hub with 100k relations costs nothing when the other end has 2).
 */
import type { Relation } from './graphTypes.js';

export interface RelationRec extends Relation {
  seq: number;
  /** Position in the graph's relation list (-1: removed). */
  at: number;
  /** Neighbours in the chain of `from`, and in the chain of `to` (unused for a self-relation). */
  nextFrom: RelationRec | undefined;
  prevFrom: RelationRec | undefined;
  nextTo: RelationRec | undefined;
  prevTo: RelationRec | undefined;
}

/** What holds the head of a name's chain: the entity of that name. */
export interface ChainHolder {
  ends: RelationRec | undefined;
}

const sameRelation = (a: Relation, b: Relation) => a.from === b.from && a.to === b.to && a.relationType === b.relationType;

/** The next relation in `name`'s chain after `r` (which is in it). */
const nextIn = (r: RelationRec, name: string) => (r.from === name ? r.nextFrom : r.nextTo);

function setNext(r: RelationRec, name: string, next: RelationRec | undefined): void {
  if (r.from === name) r.nextFrom = next;
  else r.nextTo = next;
}

function setPrev(r: RelationRec, name: string, prev: RelationRec | undefined): void {
  if (r.from === name) r.prevFrom = prev;
  else r.prevTo = prev;
}

/**
 * Puts `r` in the chain of `name` (one of its ends) whose head is `head`: `undefined` makes `r` a
 * chain of its own (the caller records it as the head); else `r` goes right after the head. Chain
 * order carries no meaning, and this way the head never changes: an existing chain costs no map write.
 */
function chainInsert(name: string, r: RelationRec, head: RelationRec | undefined): void {
  setPrev(r, name, head);
  if (!head) {
    setNext(r, name, undefined);
    return;
  }
  const next = nextIn(head, name);
  setNext(r, name, next);
  if (next) setPrev(next, name, r);
  setNext(head, name, r);
}

export class EndpointIndex {
  /** Heads of the chains of names that no entity holds. */
  private readonly loose = new Map<string, RelationRec>();

  /** `holderOf(name)`: the entity holding `name`'s chain, if there is one. */
  constructor(private readonly holderOf: (name: string) => ChainHolder | undefined) {}

  remove(r: RelationRec): void {
    this.unlink(r.from, r);
    if (r.to !== r.from) this.unlink(r.to, r);
  }

  /** The relations with `name` at either end (in no particular order). */
  touching(name: string): RelationRec[] {
    const out: RelationRec[] = [];
    for (let r = this.head(name); r; r = nextIn(r, name)) out.push(r);
    return out;
  }

  /** The stored relations equal to `r` on all three fields. */
  equal(r: Relation): RelationRec[] {
    let a = this.head(r.from);
    let b = this.head(r.to);
    const inA: RelationRec[] = [];
    const inB: RelationRec[] = [];
    for (;;) {
      // Whichever chain ends first has been seen whole, and every equal relation is in it.
      if (!a) return inA;
      if (!b) return inB;
      if (sameRelation(a, r)) inA.push(a);
      if (sameRelation(b, r)) inB.push(b);
      a = nextIn(a, r.from);
      b = nextIn(b, r.to);
    }
  }

  /** Puts `r` in `name`'s chain, held by `holder` (the entity of that name; none: a dangling end). */
  link(name: string, r: RelationRec, holder: ChainHolder | undefined): void {
    const head = holder ? holder.ends : this.loose.get(name);
    if (!head) {
      if (holder) holder.ends = r;
      else this.loose.set(name, r);
    }
    chainInsert(name, r, head);
  }

  /** `holder` is now the entity of `name`: it takes the chain of relations that named it before it existed. */
  held(name: string, holder: ChainHolder): void {
    if (this.loose.size === 0) return;
    const head = this.loose.get(name);
    if (!head) return;
    holder.ends = head;
    this.loose.delete(name);
  }

  private head(name: string): RelationRec | undefined {
    const holder = this.holderOf(name);
    return holder ? holder.ends : this.loose.get(name);
  }

  private setHead(name: string, r: RelationRec | undefined): void {
    const holder = this.holderOf(name);
    if (holder) holder.ends = r;
    else if (r) this.loose.set(name, r);
    else this.loose.delete(name);
  }

  private unlink(name: string, r: RelationRec): void {
    const viaFrom = r.from === name;
    const prev = viaFrom ? r.prevFrom : r.prevTo;
    const next = viaFrom ? r.nextFrom : r.nextTo;
    if (prev) {
      if (prev.from === name) prev.nextFrom = next;
      else prev.nextTo = next;
    } else {
      this.setHead(name, next);
    }
    if (next) {
      if (next.from === name) next.prevFrom = prev;
      else next.prevTo = prev;
    }
  }
}
