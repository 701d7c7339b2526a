/**
 * Relations by endpoint, without a list object per name: each relation is linked into a chain for
 * its `from` and one for its `to` (a self-relation into one), and a map holds each chain's head.
 * Adding and removing are O(1); no key string is built per relation. An equal relation is found by
 * walking the two chains of its ends side by side: it lies in both, so the walk stops when the
 * shorter one ends (a hub with 100k relations costs nothing when the other end has 2).
 */
import type { Relation } from './graph.js';

export interface RelationRec extends Relation {
  seq: number;
  /** Neighbours in the chain of `from`, and in the chain of `to` (unused for a self-relation). */
  nextFrom: RelationRec | undefined;
  prevFrom: RelationRec | undefined;
  nextTo: RelationRec | undefined;
  prevTo: RelationRec | undefined;
}

const sameRelation = (a: Relation, b: Relation) => a.from === b.from && a.to === b.to && a.relationType === b.relationType;

/** The next relation in `name`'s chain after `r` (which is in it). */
const nextIn = (r: RelationRec, name: string) => (r.from === name ? r.nextFrom : r.nextTo);

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

  /** The relations with `name` at either end (newest first). */
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

  private link(name: string, r: RelationRec): void {
    const head = this.heads.get(name);
    if (r.from === name) {
      r.nextFrom = head;
      r.prevFrom = undefined;
    } else {
      r.nextTo = head;
      r.prevTo = undefined;
    }
    if (head) {
      if (head.from === name) head.prevFrom = r;
      else head.prevTo = r;
    }
    this.heads.set(name, r);
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
