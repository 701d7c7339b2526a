/**
 * Trigrams of lower-cased text, hashed into `2^bits` buckets. A bucket stands for every trigram
 * hashed to it: a collision only lets an extra candidate through to the substring test, so the
 * index stays exact whatever the hash does. A trigram holding the field separator (`\0`) is skipped:
 * a query without `\0` never contains it, and a query with one is answered by a scan.
 */

/** Joins the lower-cased fields of an entity (and entities in a block) in the index's text. */
export const SEP = '\u0000';

/** The bucket of the trigram `a b c` (UTF-16 code units), for a table of `2^(32 - shift)` buckets. */
export function bucketOf(a: number, b: number, c: number, shift: number): number {
  // Multiplicative hashing: the top bits of the sum of odd-constant products.
  return (Math.imul(a, 0x9e3779b1) + Math.imul(b, 0x85ebca77) + Math.imul(c, 0xc2b2ae3d)) >>> shift;
}

/** The distinct buckets of the trigrams of `text[from, to)` that hold no separator. */
export function bucketsOf(text: string, shift: number, from = 0, to = text.length): number[] {
  const out = new Set<number>();
  for (let i = from; i + 2 < to; i++) {
    const a = text.charCodeAt(i);
    const b = text.charCodeAt(i + 1);
    const c = text.charCodeAt(i + 2);
    if (a !== 0 && b !== 0 && c !== 0) out.add(bucketOf(a, b, c, shift));
  }
  return [...out];
}

/** How many hash bits a table over `chars` characters of text uses: about one bucket per 8 characters, 2^10 to 2^18. */
export function tableBits(chars: number): number {
  let bits = 10;
  while (bits < 18 && 1 << (bits + 3) < chars) bits++;
  return bits;
}
