/**
 * The graph's relations in insertion order (which is file order: a record is never re-inserted): an
 * array with holes where relations were removed (each knows its slot), closed up once the holes
 * outnumber the live ones. Cheaper to fill than a `Set`.
 */
import type { RelationRec } from './endpoints.js';

export class RelationList {
  private slots: (RelationRec | undefined)[] = [];
  size = 0;

  add(r: RelationRec): void {
    r.at = this.slots.length;
    this.slots.push(r);
    this.size++;
  }

  /** Removes `r`; false if it was not in the list. */
  delete(r: RelationRec): boolean {
    if (r.at < 0 || this.slots[r.at] !== r) return false;
    this.slots[r.at] = undefined;
    r.at = -1;
    this.size--;
    if (this.slots.length - this.size > Math.max(1024, this.size)) this.closeUp();
    return true;
  }

  *[Symbol.iterator](): IterableIterator<RelationRec> {
    const slots = this.slots;
    for (let i = 0; i < slots.length; i++) {
      const r = slots[i];
      if (r) yield r;
    }
  }

  private closeUp(): void {
    const live: RelationRec[] = [];
    for (const r of this.slots) {
      if (!r) continue;
      r.at = live.length;
      live.push(r);
    }
    this.slots = live;
  }
}
