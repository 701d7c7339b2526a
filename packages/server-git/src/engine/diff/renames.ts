/**
 * Rename detection as `git diff` does it by default (diff.renames=true, -M50%): identical content first,
 * then files with the same unique basename at 75% similarity, then every remaining deletion × addition
 * scored with git's similarity estimate (content cut into newline-ended chunks of at most 64 bytes,
 * hashed, and the shared bytes counted; CR before LF ignored in text).
 */
import { isBinary, MAX_SCORE } from './patch.js';

export interface RenameFile {
  path: string;
  oid: string;
  mode: number;
  load(): Promise<Uint8Array>;
}

export interface Rename {
  /** Index into the sources (deleted files). */
  src: number;
  /** Index into the destinations (added files). */
  dst: number;
  score: number;
}

const DEFAULT_MIN_SCORE = 30000;
const CANDIDATES_PER_DST = 4;
const RENAME_LIMIT = 1000;
const HASHBASE = 107927;

const isRegular = (mode: number) => (mode & 0o170000) === 0o100000;
const basename = (path: string) => path.slice(path.lastIndexOf('/') + 1);

/** Bytes per chunk hash (git's spanhash counts). */
function chunkCounts(data: Uint8Array): Map<number, number> {
  const counts = new Map<number, number>();
  const text = !isBinary(data);
  let accum1 = 0;
  let accum2 = 0;
  let n = 0;
  for (let i = 0; i < data.length; i++) {
    const c = data[i]!;
    if (text && c === 0x0d && i + 1 < data.length && data[i + 1] === 0x0a) continue;
    const old1 = accum1;
    accum1 = ((accum1 << 7) ^ (accum2 >>> 25)) >>> 0;
    accum2 = ((accum2 << 7) ^ (old1 >>> 25)) >>> 0;
    accum1 = (accum1 + c) >>> 0;
    if (++n < 64 && c !== 0x0a) continue;
    const hash = ((accum1 + Math.imul(accum2, 0x61)) >>> 0) % HASHBASE;
    counts.set(hash, (counts.get(hash) ?? 0) + n);
    n = 0;
    accum1 = 0;
    accum2 = 0;
  }
  return counts;
}

class Content {
  private data: Uint8Array | null = null;
  private counts: Map<number, number> | null = null;
  constructor(readonly file: RenameFile) {}
  async bytes(): Promise<Uint8Array> {
    this.data ??= await this.file.load();
    return this.data;
  }
  async chunks(): Promise<Map<number, number>> {
    this.counts ??= chunkCounts(await this.bytes());
    return this.counts;
  }
}

/** git's estimate_similarity: 0..MAX_SCORE, 0 when not comparable. */
async function similarity(src: Content, dst: Content, minimum: number): Promise<number> {
  if (!isRegular(src.file.mode) || !isRegular(dst.file.mode)) return 0;
  const srcSize = (await src.bytes()).length;
  const dstSize = (await dst.bytes()).length;
  const maxSize = Math.max(srcSize, dstSize);
  const delta = maxSize - Math.min(srcSize, dstSize);
  if (maxSize * (MAX_SCORE - minimum) < delta * MAX_SCORE) return 0;
  if (dstSize === 0) return 0;
  const a = await src.chunks();
  const b = await dst.chunks();
  let copied = 0;
  for (const [hash, count] of a) {
    const other = b.get(hash);
    if (other !== undefined) copied += Math.min(count, other);
  }
  return Math.floor((copied * MAX_SCORE) / maxSize);
}

interface Candidate {
  src: number;
  dst: number;
  score: number;
  nameScore: number;
}

function compareCandidates(a: Candidate, b: Candidate): number {
  if (a.dst < 0) return b.dst >= 0 ? 1 : 0;
  if (b.dst < 0) return -1;
  if (a.score === b.score) return b.nameScore - a.nameScore;
  return b.score - a.score;
}

/** Pairs deleted files (`sources`) with added ones (`dests`), both in path order. */
export async function detectRenames(sources: readonly RenameFile[], dests: readonly RenameFile[]): Promise<Rename[]> {
  const renames: Rename[] = [];
  if (sources.length === 0 || dests.length === 0) return renames;
  const srcUsed = new Array<boolean>(sources.length).fill(false);
  const dstDone = new Array<boolean>(dests.length).fill(false);

  // 1. Identical content (same blob), preferring an unused source with the same basename.
  const byOid = new Map<string, number[]>();
  sources.forEach((s, i) => {
    const list = byOid.get(s.oid) ?? [];
    list.push(i);
    byOid.set(s.oid, list);
  });
  dests.forEach((d, di) => {
    let best = -1;
    let bestScore = -1;
    for (const si of byOid.get(d.oid) ?? []) {
      const s = sources[si]!;
      if ((!isRegular(s.mode) || !isRegular(d.mode)) && s.mode !== d.mode) continue;
      if (srcUsed[si]) continue;
      const score = 1 + (basename(s.path) === basename(d.path) ? 1 : 0);
      if (score > bestScore) {
        best = si;
        bestScore = score;
        if (score === 2) break;
      }
    }
    if (best >= 0) {
      srcUsed[best] = true;
      dstDone[di] = true;
      renames.push({ src: best, dst: di, score: MAX_SCORE });
    }
  });

  const src = sources.map((f) => new Content(f));
  const dst = dests.map((f) => new Content(f));

  // 2. A basename that is unique among the remaining sources and destinations: 75% similar is enough.
  const minBasename = DEFAULT_MIN_SCORE + (MAX_SCORE - DEFAULT_MIN_SCORE) / 2;
  const unique = (files: readonly RenameFile[], skip: boolean[]) => {
    const map = new Map<string, number>();
    files.forEach((f, i) => {
      if (skip[i]) return;
      const base = basename(f.path);
      map.set(base, map.has(base) ? -1 : i);
    });
    return map;
  };
  const srcBases = unique(sources, srcUsed);
  const dstBases = unique(dests, dstDone);
  for (const [base, si] of srcBases) {
    const di = dstBases.get(base);
    if (si < 0 || di === undefined || di < 0) continue;
    const score = await similarity(src[si]!, dst[di]!, minBasename);
    if (score < minBasename) continue;
    srcUsed[si] = true;
    dstDone[di] = true;
    renames.push({ src: si, dst: di, score });
  }

  // 3. Everything left: best candidates per destination, best scores first.
  const srcLeft = sources.map((_, i) => i).filter((i) => !srcUsed[i]);
  const dstLeft = dests.map((_, i) => i).filter((i) => !dstDone[i]);
  if (srcLeft.length === 0 || dstLeft.length === 0) return renames;
  if (srcLeft.length * dstLeft.length > RENAME_LIMIT * RENAME_LIMIT) return renames;
  const matrix: Candidate[] = [];
  for (const di of dstLeft) {
    const best: Candidate[] = Array.from({ length: CANDIDATES_PER_DST }, () => ({ src: -1, dst: -1, score: 0, nameScore: 0 }));
    for (const si of srcLeft) {
      const candidate: Candidate = {
        src: si,
        dst: di,
        score: await similarity(src[si]!, dst[di]!, DEFAULT_MIN_SCORE),
        nameScore: basename(sources[si]!.path) === basename(dests[di]!.path) ? 1 : 0,
      };
      let worst = 0;
      for (let k = 1; k < CANDIDATES_PER_DST; k++) if (compareCandidates(best[k]!, best[worst]!) > 0) worst = k;
      if (compareCandidates(best[worst]!, candidate) > 0) best[worst] = candidate;
    }
    matrix.push(...best);
  }
  // Array.prototype.sort is stable, like git's STABLE_QSORT.
  matrix.sort(compareCandidates);
  for (const c of matrix) {
    if (c.dst < 0 || c.score < DEFAULT_MIN_SCORE) break;
    if (dstDone[c.dst] || srcUsed[c.src]) continue;
    dstDone[c.dst] = true;
    srcUsed[c.src] = true;
    renames.push({ src: c.src, dst: c.dst, score: c.score });
  }
  return renames;
}
