/**
 * Relations by endpoint, without a list object per name: each relation is linked into a chain for
 * its `from` and one for its `to` (a self-relation into one), and a map holds each chain's head.
 * Adding and removing are O(1); no key string is built per relation. An equal relation is found by
 * walking the two chains of its ends side by side: it lies in both, so the walk stops when the
 * shorter one ends (a hub with 100k relations costs nothing when the other end has 2).
 *
 * A chain can also be built outside the map (`chainInsert`; the graph does so on each entity while
 * a file loads, saving a map lookup per end) and handed over later (`adopt`).
 */
import type { Relation } from './graph.js';

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
export function chainInsert(name: string, r: RelationRec, head: RelationRec | undefined): void {
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
  private readonly heads = new Map<string, RelationRec>();

  add(r: RelationRec): void {
    this.link(r.from, r);
    if (r.to !== r.from) this.link(r.to, r);
  }

  remove(r: RelationRec): void {
    this.unlink(r.from, r);
    if (r.to !== r.from) this.unlink(r.to, r);
  }

  has(name: string): boolean {
    return this.heads.has(name);
  }

  /** The relations with `name` at either end (in no particular order). */
  touching(name: string): RelationRec[] {
    const out: RelationRec[] = [];
    for (let r = this.heads.get(name); r; r = nextIn(r, name)) out.push(r);
    return out;
  }

  /** The stored relations equal to `r` on all three fields. */
  equal(r: Relation): RelationRec[] {
    let a = this.heads.get(r.from);
    let b = this.heads.get(r.to);
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

  /** Puts `r` in `name`'s chain (see `chainInsert`). */
  link(name: string, r: RelationRec): void {
    const head = this.heads.get(name);
    if (!head) this.heads.set(name, r);
    chainInsert(name, r, head);
  }

  /**
   * Makes `head`, a chain built with `chainInsert` outside the map, `name`'s chain; when `name` has
   * one already, the two are joined (the new one after the head of the old one).
   */
  adopt(name: string, head: RelationRec): void {
    const mine = this.heads.get(name);
    if (!mine) {
      this.heads.set(name, head);
      return;
    }
    let tail = head;
    for (let n = nextIn(tail, name); n; n = nextIn(n, name)) tail = n;
    const after = nextIn(mine, name);
    setNext(tail, name, after);
    if (after) setPrev(after, name, tail);
    setNext(mine, name, head);
    setPrev(head, name, mine);
  }

  private unlink(name: string, r: RelationRec): void {
    const viaFrom = r.from === name;
    const prev = viaFrom ? r.prevFrom : r.prevTo;
    const next = viaFrom ? r.nextFrom : r.nextTo;
    if (prev) {
      if (prev.from === name) prev.nextFrom = next;
      else prev.nextTo = next;
    } else if (next) {
      this.heads.set(name, next);
    } else {
      this.heads.delete(name);
    }
    if (next) {
      if (next.from === name) next.prevFrom = prev;
      else next.prevTo = prev;
    }
  }
}
