/**
 * Line diff that places changes where `git diff` (xdiff, Myers, indent heuristic on — git's defaults)
 * places them, so hunks come out byte for byte the same:
 *
 * 1. lines are compared whole, terminator included (`a` and `a\n` differ, as in git);
 * 2. equal lines at both ends are taken out first, and lines that occur nowhere in the other file are
 *    marked changed before the search (a run of lines that occur very often next to such lines too);
 * 3. the remaining lines go through Myers' O(ND) search from both ends (middle snake, divide and conquer,
 *    with the cost cut-offs that keep huge diffs fast);
 * 4. every run of changed lines is then slid up or down to where it lines up with a change on the other
 *    side, or else to the position the indent heuristic scores best.
 *
 * jsdiff (the `diff` package) finds an equally short edit script but chooses differently among the
 * equally short ones, so hunks would differ from git's; this module exists for that reason alone.
 */

import { classifyLines, type LineTable, tableOf } from './lineTable.js';

/** Splits text (one char per byte, latin1) into lines that keep their `\n`; the last may lack one. */
export function splitLines(text: string): string[] {
  const lines: string[] = [];
  let start = 0;
  while (start < text.length) {
    const nl = text.indexOf('\n', start);
    if (nl < 0) {
      lines.push(text.slice(start));
      break;
    }
    lines.push(text.slice(start, nl + 1));
    start = nl + 1;
  }
  return lines;
}

/** One change: `count1` lines of the old file from `start1` replaced by `count2` lines of the new from `start2` (0-based). */
export interface Change {
  start1: number;
  count1: number;
  start2: number;
  count2: number;
}

/** A file's lines as class ids plus the per-line "changed" flags (index i+1 ↔ line i; 0 and n+1 stay 0). */
interface Side {
  lines: LineTable;
  ids: Int32Array;
  changed: Uint8Array;
  n: number;
}

const MAX_EQ_LIMIT = 1024;
const SIMSCAN_WINDOW = 100;
const KPDIS_RUN = 4;
const MAX_COST_MIN = 256;
const HEUR_MIN_COST = 256;
const SNAKE_CNT = 20;
const K_HEUR = 4;
const LINE_MAX = Number.MAX_SAFE_INTEGER;

/** git's cheap square root: the next power of two of about √n. */
function bogosqrt(n: number): number {
  let i = 1;
  for (let v = n; v > 0; v = Math.floor(v / 4)) i *= 2;
  return i;
}

/** Is line `i` (dis = 2: matches too often) inside a run of unmatched lines, so that it can be set aside too? */
function discardableMultimatch(dis: Uint8Array, i: number, start: number, end: number): boolean {
  const s = i - start > SIMSCAN_WINDOW ? i - SIMSCAN_WINDOW : start;
  const e = end - i > SIMSCAN_WINDOW ? i + SIMSCAN_WINDOW : end;
  let before = 0;
  let multiBefore = 1;
  for (let r = 1; i - r >= s; r++) {
    const d = dis[i - r];
    if (d === 0) before++;
    else if (d === 2) multiBefore++;
    else break;
  }
  if (before === 0) return false;
  let after = 0;
  let multiAfter = 1;
  for (let r = 1; i + r <= e; r++) {
    const d = dis[i + r];
    if (d === 0) after++;
    else if (d === 2) multiAfter++;
    else break;
  }
  if (after === 0) return false;
  const unmatched = before + after;
  const multi = multiBefore + multiAfter;
  return multi * KPDIS_RUN < multi + unmatched;
}

/** Middle-snake Myers over the kept lines `h1[off1..lim1)` × `h2[off2..lim2)`; marks changes through `index`. */
class Myers {
  private readonly kvdf: Float64Array;
  private readonly kvdb: Float64Array;
  private readonly base: number;
  private readonly mxcost: number;

  constructor(
    private readonly h1: Int32Array,
    private readonly h2: Int32Array,
    private readonly index1: Int32Array,
    private readonly index2: Int32Array,
    private readonly changed1: Uint8Array,
    private readonly changed2: Uint8Array,
  ) {
    const ndiags = h1.length + h2.length + 3;
    this.kvdf = new Float64Array(ndiags);
    this.kvdb = new Float64Array(ndiags);
    this.base = h2.length + 1;
    this.mxcost = Math.max(bogosqrt(ndiags), MAX_COST_MIN);
  }

  compare(off1: number, lim1: number, off2: number, lim2: number, needMin: boolean): void {
    // Iterative on the right half, recursive on the left, so deep splits do not overflow the stack.
    for (;;) {
      const { h1, h2 } = this;
      while (off1 < lim1 && off2 < lim2 && h1[off1] === h2[off2]) {
        off1++;
        off2++;
      }
      while (off1 < lim1 && off2 < lim2 && h1[lim1 - 1] === h2[lim2 - 1]) {
        lim1--;
        lim2--;
      }
      if (off1 === lim1) {
        for (; off2 < lim2; off2++) this.changed2[this.index2[off2]! + 1] = 1;
        return;
      }
      if (off2 === lim2) {
        for (; off1 < lim1; off1++) this.changed1[this.index1[off1]! + 1] = 1;
        return;
      }
      const split = this.split(off1, lim1, off2, lim2, needMin);
      this.compare(off1, split.i1, off2, split.i2, split.minLo);
      off1 = split.i1;
      off2 = split.i2;
      needMin = split.minHi;
    }
  }

  private split(off1: number, lim1: number, off2: number, lim2: number, needMin: boolean) {
    const { h1, h2, kvdf, kvdb, base } = this;
    const dmin = off1 - lim2;
    const dmax = lim1 - off2;
    const fmid = off1 - off2;
    const bmid = lim1 - lim2;
    const odd = ((fmid - bmid) & 1) !== 0;
    let fmin = fmid;
    let fmax = fmid;
    let bmin = bmid;
    let bmax = bmid;
    kvdf[base + fmid] = off1;
    kvdb[base + bmid] = lim1;
    for (let ec = 1; ; ec++) {
      let gotSnake = false;
      if (fmin > dmin) kvdf[base + --fmin - 1] = -1;
      else ++fmin;
      if (fmax < dmax) kvdf[base + ++fmax + 1] = -1;
      else --fmax;
      for (let d = fmax; d >= fmin; d -= 2) {
        let i1 = kvdf[base + d - 1]! >= kvdf[base + d + 1]! ? kvdf[base + d - 1]! + 1 : kvdf[base + d + 1]!;
        const prev = i1;
        let i2 = i1 - d;
        while (i1 < lim1 && i2 < lim2 && h1[i1] === h2[i2]) {
          i1++;
          i2++;
        }
        if (i1 - prev > SNAKE_CNT) gotSnake = true;
        kvdf[base + d] = i1;
        if (odd && bmin <= d && d <= bmax && kvdb[base + d]! <= i1) return { i1, i2, minLo: true, minHi: true };
      }
      if (bmin > dmin) kvdb[base + --bmin - 1] = LINE_MAX;
      else ++bmin;
      if (bmax < dmax) kvdb[base + ++bmax + 1] = LINE_MAX;
      else --bmax;
      for (let d = bmax; d >= bmin; d -= 2) {
        let i1 = kvdb[base + d - 1]! < kvdb[base + d + 1]! ? kvdb[base + d - 1]! : kvdb[base + d + 1]! - 1;
        const prev = i1;
        let i2 = i1 - d;
        while (i1 > off1 && i2 > off2 && h1[i1 - 1] === h2[i2 - 1]) {
          i1--;
          i2--;
        }
        if (prev - i1 > SNAKE_CNT) gotSnake = true;
        kvdb[base + d] = i1;
        if (!odd && fmin <= d && d <= fmax && i1 <= kvdf[base + d]!) return { i1, i2, minLo: true, minHi: true };
      }
      if (needMin) continue;
      // Costly: take a diagonal that has reached far with a long snake behind it.
      if (gotSnake && ec > HEUR_MIN_COST) {
        let best = 0;
        let found = { i1: 0, i2: 0 };
        for (let d = fmax; d >= fmin; d -= 2) {
          const dd = d > fmid ? d - fmid : fmid - d;
          const i1 = kvdf[base + d]!;
          const i2 = i1 - d;
          const v = i1 - off1 + (i2 - off2) - dd;
          if (v > K_HEUR * ec && v > best && off1 + SNAKE_CNT <= i1 && i1 < lim1 && off2 + SNAKE_CNT <= i2 && i2 < lim2) {
            for (let k = 1; h1[i1 - k] === h2[i2 - k]; k++) {
              if (k === SNAKE_CNT) {
                best = v;
                found = { i1, i2 };
                break;
              }
            }
          }
        }
        if (best > 0) return { ...found, minLo: true, minHi: false };
        for (let d = bmax; d >= bmin; d -= 2) {
          const dd = d > bmid ? d - bmid : bmid - d;
          const i1 = kvdb[base + d]!;
          const i2 = i1 - d;
          const v = lim1 - i1 + (lim2 - i2) - dd;
          if (v > K_HEUR * ec && v > best && off1 < i1 && i1 <= lim1 - SNAKE_CNT && off2 < i2 && i2 <= lim2 - SNAKE_CNT) {
            for (let k = 0; h1[i1 + k] === h2[i2 + k]; k++) {
              if (k === SNAKE_CNT - 1) {
                best = v;
                found = { i1, i2 };
                break;
              }
            }
          }
        }
        if (best > 0) return { ...found, minLo: false, minHi: true };
      }
      // Enough: take the furthest-reaching path.
      if (ec >= this.mxcost) {
        let fbest = -1;
        let fbest1 = -1;
        for (let d = fmax; d >= fmin; d -= 2) {
          let i1 = Math.min(kvdf[base + d]!, lim1);
          let i2 = i1 - d;
          if (lim2 < i2) {
            i1 = lim2 + d;
            i2 = lim2;
          }
          if (fbest < i1 + i2) {
            fbest = i1 + i2;
            fbest1 = i1;
          }
        }
        let bbest = LINE_MAX;
        let bbest1 = LINE_MAX;
        for (let d = bmax; d >= bmin; d -= 2) {
          let i1 = Math.max(off1, kvdb[base + d]!);
          let i2 = i1 - d;
          if (i2 < off2) {
            i1 = off2 + d;
            i2 = off2;
          }
          if (i1 + i2 < bbest) {
            bbest = i1 + i2;
            bbest1 = i1;
          }
        }
        if (lim1 + lim2 - bbest < fbest - (off1 + off2)) return { i1: fbest1, i2: fbest - fbest1, minLo: true, minHi: false };
        return { i1: bbest1, i2: bbest - bbest1, minLo: false, minHi: true };
      }
    }
  }
}

// ---- sliding groups of changed lines (compaction) and the indent heuristic ----

const MAX_INDENT = 200;
const MAX_BLANKS = 20;
const START_OF_FILE_PENALTY = 1;
const END_OF_FILE_PENALTY = 21;
const TOTAL_BLANK_WEIGHT = -30;
const POST_BLANK_WEIGHT = 6;
const RELATIVE_INDENT_PENALTY = -4;
const RELATIVE_INDENT_WITH_BLANK_PENALTY = 10;
const RELATIVE_OUTDENT_PENALTY = 24;
const RELATIVE_OUTDENT_WITH_BLANK_PENALTY = 17;
const RELATIVE_DEDENT_PENALTY = 23;
const RELATIVE_DEDENT_WITH_BLANK_PENALTY = 17;
const INDENT_WEIGHT = 60;
const INDENT_HEURISTIC_MAX_SLIDING = 100;

/** Indentation width of line `at` (tab = to the next multiple of 8), -1 for a blank line, at most MAX_INDENT. */
function indentOf(lines: LineTable, at: number): number {
  const { text, starts } = lines;
  let ret = 0;
  for (let i = starts[at]!, end = starts[at + 1]!; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x20) ret += 1;
    else if (c === 0x09) ret += 8 - (ret % 8);
    else if (c === 0x0a || c === 0x0d) {
      // other whitespace (git's isspace: \n, \r): ignored
    } else return ret;
    if (ret >= MAX_INDENT) return MAX_INDENT;
  }
  return -1;
}

interface Score {
  effectiveIndent: number;
  penalty: number;
}

function addSplitScore(side: Side, indents: Int16Array, split: number, score: Score): void {
  const indent = (i: number) => {
    let v = indents[i]!;
    if (v === -2) {
      v = indentOf(side.lines, i);
      indents[i] = v;
    }
    return v;
  };
  const endOfFile = split >= side.n;
  const lineIndent = endOfFile ? -1 : indent(split);
  let preBlank = 0;
  let preIndent = -1;
  for (let i = split - 1; i >= 0; i--) {
    preIndent = indent(i);
    if (preIndent !== -1) break;
    preBlank++;
    if (preBlank === MAX_BLANKS) {
      preIndent = 0;
      break;
    }
  }
  let postBlankAfter = 0;
  let postIndent = -1;
  for (let i = split + 1; i < side.n; i++) {
    postIndent = indent(i);
    if (postIndent !== -1) break;
    postBlankAfter++;
    if (postBlankAfter === MAX_BLANKS) {
      postIndent = 0;
      break;
    }
  }
  if (preIndent === -1 && preBlank === 0) score.penalty += START_OF_FILE_PENALTY;
  if (endOfFile) score.penalty += END_OF_FILE_PENALTY;
  const postBlank = lineIndent === -1 ? 1 + postBlankAfter : 0;
  const totalBlank = preBlank + postBlank;
  score.penalty += TOTAL_BLANK_WEIGHT * totalBlank + POST_BLANK_WEIGHT * postBlank;
  const effective = lineIndent !== -1 ? lineIndent : postIndent;
  const anyBlanks = totalBlank !== 0;
  score.effectiveIndent += effective;
  if (effective === -1 || preIndent === -1 || effective === preIndent) return;
  if (effective > preIndent) score.penalty += anyBlanks ? RELATIVE_INDENT_WITH_BLANK_PENALTY : RELATIVE_INDENT_PENALTY;
  else if (postIndent !== -1 && postIndent > effective)
    score.penalty += anyBlanks ? RELATIVE_OUTDENT_WITH_BLANK_PENALTY : RELATIVE_OUTDENT_PENALTY;
  else score.penalty += anyBlanks ? RELATIVE_DEDENT_WITH_BLANK_PENALTY : RELATIVE_DEDENT_PENALTY;
}

function scoreCmp(a: Score, b: Score): number {
  const cmp = Math.sign(a.effectiveIndent - b.effectiveIndent);
  return INDENT_WEIGHT * cmp + (a.penalty - b.penalty);
}

/** A run of changed lines [start, end) of one side (empty when start === end), changed[] offset by one. */
class Group {
  start = 0;
  end = 0;
  constructor(private readonly side: Side) {
    while (side.changed[this.end + 1]) this.end++;
  }
  next(): boolean {
    if (this.end === this.side.n) return false;
    this.start = this.end + 1;
    this.end = this.start;
    while (this.side.changed[this.end + 1]) this.end++;
    return true;
  }
  previous(): boolean {
    if (this.start === 0) return false;
    this.end = this.start - 1;
    this.start = this.end;
    while (this.side.changed[this.start]) this.start--;
    return true;
  }
  slideDown(): boolean {
    const { side } = this;
    if (this.end < side.n && side.ids[this.start] === side.ids[this.end]) {
      side.changed[this.start++ + 1] = 0;
      side.changed[this.end++ + 1] = 1;
      while (side.changed[this.end + 1]) this.end++;
      return true;
    }
    return false;
  }
  slideUp(): boolean {
    const { side } = this;
    if (this.start > 0 && side.ids[this.start - 1] === side.ids[this.end - 1]) {
      side.changed[--this.start + 1] = 1;
      side.changed[--this.end + 1] = 0;
      while (side.changed[this.start]) this.start--;
      return true;
    }
    return false;
  }
}

function compact(side: Side, other: Side): void {
  const g = new Group(side);
  const go = new Group(other);
  const indents = new Int16Array(side.n).fill(-2);
  for (;;) {
    if (g.end !== g.start) {
      let groupSize: number;
      let earliestEnd: number;
      let endMatchingOther: number;
      do {
        groupSize = g.end - g.start;
        endMatchingOther = -1;
        while (g.slideUp()) go.previous();
        earliestEnd = g.end;
        if (go.end > go.start) endMatchingOther = g.end;
        while (g.slideDown()) {
          go.next();
          if (go.end > go.start) endMatchingOther = g.end;
        }
      } while (groupSize !== g.end - g.start);
      if (g.end === earliestEnd) {
        // cannot move
      } else if (endMatchingOther !== -1) {
        while (go.end === go.start) {
          g.slideUp();
          go.previous();
        }
      } else {
        let shift = Math.max(earliestEnd, g.end - groupSize - 1, g.end - INDENT_HEURISTIC_MAX_SLIDING);
        let bestShift = -1;
        let best: Score = { effectiveIndent: 0, penalty: 0 };
        for (; shift <= g.end; shift++) {
          const score: Score = { effectiveIndent: 0, penalty: 0 };
          addSplitScore(side, indents, shift, score);
          addSplitScore(side, indents, shift - groupSize, score);
          if (bestShift === -1 || scoreCmp(score, best) <= 0) {
            best = score;
            bestShift = shift;
          }
        }
        while (g.end > bestShift) {
          g.slideUp();
          go.previous();
        }
      }
    }
    if (!g.next()) break;
    go.next();
  }
}

/** The changes that turn `a` into `b` (lines with their terminators), in order, as git diff finds them. */
export function diffLines(a: readonly string[], b: readonly string[]): Change[] {
  return diffTables(tableOf(a), tableOf(b));
}

/** diffLines over line tables (no string per line). */
export function diffTables(a: LineTable, b: LineTable): Change[] {
  const { ids1, ids2, classes } = classifyLines(a, b);
  const s1: Side = { lines: a, ids: ids1, changed: new Uint8Array(a.n + 2), n: a.n };
  const s2: Side = { lines: b, ids: ids2, changed: new Uint8Array(b.n + 2), n: b.n };
  const count1 = new Int32Array(classes);
  const count2 = new Int32Array(classes);
  for (const id of s1.ids) count1[id]!++;
  for (const id of s2.ids) count2[id]!++;

  // Equal lines at both ends.
  let dstart = 0;
  const lim = Math.min(s1.n, s2.n);
  while (dstart < lim && s1.ids[dstart] === s2.ids[dstart]) dstart++;
  let tail = 0;
  while (tail < lim - dstart && s1.ids[s1.n - 1 - tail] === s2.ids[s2.n - 1 - tail]) tail++;
  const dend1 = s1.n - tail - 1;
  const dend2 = s2.n - tail - 1;

  // Lines without a match on the other side are changes; keep the rest for the search.
  const keep = (side: Side, dend: number, otherCount: Int32Array) => {
    const mlim = Math.min(bogosqrt(side.n), MAX_EQ_LIMIT);
    const dis = new Uint8Array(side.n + 1);
    for (let i = dstart; i <= dend; i++) {
      const nm = Math.min(otherCount[side.ids[i]!]!, mlim);
      dis[i] = nm === 0 ? 0 : nm >= mlim ? 2 : 1;
    }
    const hashes = new Int32Array(Math.max(dend - dstart + 1, 0));
    const index = new Int32Array(hashes.length);
    let kept = 0;
    for (let i = dstart; i <= dend; i++) {
      if (dis[i] === 1 || (dis[i] === 2 && !discardableMultimatch(dis, i, dstart, dend))) {
        index[kept] = i;
        hashes[kept++] = side.ids[i]!;
      } else side.changed[i + 1] = 1;
    }
    return { h: hashes.subarray(0, kept), index: index.subarray(0, kept) };
  };
  const k1 = keep(s1, dend1, count2);
  const k2 = keep(s2, dend2, count1);
  new Myers(k1.h, k2.h, k1.index, k2.index, s1.changed, s2.changed).compare(0, k1.h.length, 0, k2.h.length, false);

  compact(s1, s2);
  compact(s2, s1);

  const changes: Change[] = [];
  let i1 = 0;
  let i2 = 0;
  while (i1 < s1.n || i2 < s2.n) {
    if (s1.changed[i1 + 1] || s2.changed[i2 + 1]) {
      const start1 = i1;
      const start2 = i2;
      while (s1.changed[i1 + 1]) i1++;
      while (s2.changed[i2 + 1]) i2++;
      changes.push({ start1, count1: i1 - start1, start2, count2: i2 - start2 });
    } else {
      i1++;
      i2++;
    }
  }
  return changes;
}
