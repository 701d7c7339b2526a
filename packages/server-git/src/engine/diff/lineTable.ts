/**
 * A file's lines as offsets into its text (a byte string, one char per byte), and the line classes the
 * line diff compares: equal lines get the same integer id. Large files are diffed this way without a
 * string per line (an 18 MB file has ~300k lines; a string and a map entry for each cost more than the
 * text itself).
 */

export interface LineTable {
  /** The text (a byte string); lines are `text.slice(starts[i], starts[i + 1])`, terminator included. */
  readonly text: string;
  /** Where each line starts, then where the last one ends: `n + 1` entries. */
  readonly starts: Int32Array;
  /** The number of lines. */
  readonly n: number;
}

/** The lines of `text` up to `end` (a line keeps its `\n`; the last may lack one). */
export function lineTable(text: string, end = text.length): LineTable {
  let n = 0;
  for (let at = text.indexOf('\n'); at >= 0 && at < end; at = text.indexOf('\n', at + 1)) n++;
  const lastOpen = end > 0 && text.charCodeAt(end - 1) !== 0x0a;
  if (lastOpen) n++;
  const starts = new Int32Array(n + 1);
  let i = 0;
  for (let at = text.indexOf('\n'); at >= 0 && at < end; at = text.indexOf('\n', at + 1)) starts[++i] = at + 1;
  starts[n] = end;
  return { text, starts, n };
}

/** A table over lines given as strings (each keeping its terminator). */
export function tableOf(lines: readonly string[]): LineTable {
  const starts = new Int32Array(lines.length + 1);
  for (let i = 0; i < lines.length; i++) starts[i + 1] = starts[i]! + lines[i]!.length;
  return { text: lines.join(''), starts, n: lines.length };
}

/** Line `i` of a table, as a string. */
export function lineAt(t: LineTable, i: number): string {
  return t.text.slice(t.starts[i], t.starts[i + 1]);
}

function hashLine(text: string, start: number, end: number): number {
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

function sameLine(a: LineTable, i: number, b: LineTable, j: number): boolean {
  const s1 = a.starts[i]!;
  const len = a.starts[i + 1]! - s1;
  const s2 = b.starts[j]!;
  if (b.starts[j + 1]! - s2 !== len) return false;
  const x = a.text;
  const y = b.text;
  for (let k = 0; k < len; k++) if (x.charCodeAt(s1 + k) !== y.charCodeAt(s2 + k)) return false;
  return true;
}

/** Up to this many bytes in both texts, lines are classified through a Map of line strings (V8 hashes them natively). */
const SMALL_TEXTS = 256 * 1024;

/** classifyLines for small texts: the same ids (in order of first appearance, `a` before `b`), a string per line. */
function classifyByStrings(a: LineTable, b: LineTable): { ids1: Int32Array; ids2: Int32Array; classes: number } {
  const seen = new Map<string, number>();
  const classify = (t: LineTable) => {
    const ids = new Int32Array(t.n);
    const { text, starts } = t;
    for (let i = 0; i < t.n; i++) {
      const line = text.slice(starts[i], starts[i + 1]);
      let id = seen.get(line);
      if (id === undefined) {
        id = seen.size;
        seen.set(line, id);
      }
      ids[i] = id;
    }
    return ids;
  };
  const ids1 = classify(a);
  const ids2 = classify(b);
  return { ids1, ids2, classes: seen.size };
}

/**
 * Class ids for the lines of both tables (equal lines, terminator included, share an id; ids count up
 * from 0 in order of first appearance, `a` before `b`), from an open-addressing table of line hashes.
 */
export function classifyLines(a: LineTable, b: LineTable): { ids1: Int32Array; ids2: Int32Array; classes: number } {
  if (a.text.length + b.text.length <= SMALL_TEXTS) return classifyByStrings(a, b);
  const total = a.n + b.n;
  let size = 16;
  while (size < total * 2) size *= 2;
  const mask = size - 1;
  // Per slot: the class id + 1 (0 = empty), and a line of that class (its side in the sign: b's lines as ~j).
  const slotClass = new Int32Array(size);
  const slotLine = new Int32Array(size);
  let classes = 0;
  const classify = (t: LineTable, ids: Int32Array, onB: boolean) => {
    for (let i = 0; i < t.n; i++) {
      let slot = hashLine(t.text, t.starts[i]!, t.starts[i + 1]!) & mask;
      for (;;) {
        const c = slotClass[slot]!;
        if (c === 0) {
          slotClass[slot] = ++classes;
          slotLine[slot] = onB ? ~i : i;
          ids[i] = classes - 1;
          break;
        }
        const rep = slotLine[slot]!;
        if (rep >= 0 ? sameLine(a, rep, t, i) : sameLine(b, ~rep, t, i)) {
          ids[i] = c - 1;
          break;
        }
        slot = (slot + 1) & mask;
      }
    }
  };
  const ids1 = new Int32Array(a.n);
  const ids2 = new Int32Array(b.n);
  classify(a, ids1, false);
  classify(b, ids2, true);
  return { ids1, ids2, classes };
}
