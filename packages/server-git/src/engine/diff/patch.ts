/**
 * One file's part of a `git diff` patch, byte for byte as git 2.39 prints it without color: the
 * `diff --git` header, mode / rename / `index` lines, `---`/`+++`, and hunks with git's default
 * function-name context. Text is handled as byte strings (one char per byte, latin1) until the end.
 */
import { type Change, diffTables } from './lineDiff.js';
import { type LineTable, lineAt, lineTable } from './lineTable.js';

/** One side of a file pair; `data` is the content (for a gitlink, `Subproject commit <oid>\n`). */
export interface DiffSide {
  path: string;
  oid: string;
  mode: number;
  data: Uint8Array;
}

/** A file pair; `null` on one side for an addition or a deletion. `score`: rename similarity (0..60000). */
export interface FilePair {
  old: DiffSide | null;
  new: DiffSide | null;
  score?: number;
}

interface HunkInfo {
  header: string;
  old_start: number;
  old_lines: number;
  new_start: number;
  new_lines: number;
}

type FileStatus = 'added' | 'modified' | 'deleted' | 'mode' | 'renamed';

export interface FilePatch {
  /** The patch text as a byte string (latin1). */
  bytes: string;
  /** Where the header ends in `bytes` (after `+++` when there is one): GitPython's `Diff.diff` is what follows. */
  hunksAt: number;
  /** Whether `---`/`+++` lines were printed. */
  hasFileLines: boolean;
  path: string;
  old_path?: string;
  status: FileStatus;
  binary: boolean;
  additions: number;
  deletions: number;
  hunks: HunkInfo[];
}

export interface PatchOptions {
  /** Context lines (git diff -U<n>). */
  context: number;
  /** Abbreviates an object id for the `index` line. */
  abbrev: (oid: string) => string;
}

const NULL_OID = '0000000000000000000000000000000000000000';
/** git's MAX_SCORE: similarity scores run from 0 to this. */
export const MAX_SCORE = 60000;

/** A JS string as its UTF-8 bytes, one char per byte. */
export function byteString(text: string): string {
  return Buffer.from(text, 'utf8').toString('latin1');
}

/** Bytes as a byte string. */
export function bytesToByteString(data: Uint8Array): string {
  return Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('latin1');
}

/** A byte string decoded as UTF-8 (invalid sequences become U+FFFD). */
export function decodeByteString(bytes: string): string {
  return Buffer.from(bytes, 'latin1').toString('utf8');
}

/** git's rule: binary when a NUL byte occurs in the first 8000 bytes. */
export function isBinary(data: Uint8Array): boolean {
  const n = Math.min(data.length, 8000);
  for (let i = 0; i < n; i++) if (data[i] === 0) return true;
  return false;
}

const ESCAPES: Record<number, string> = { 7: 'a', 8: 'b', 9: 't', 10: 'n', 11: 'v', 12: 'f', 13: 'r', 34: '"', 92: '\\' };

function needsQuote(bytes: string): boolean {
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes.charCodeAt(i);
    if (c < 0x20 || c === 0x22 || c === 0x5c || c >= 0x7f) return true;
  }
  return false;
}

function escapeBytes(bytes: string): string {
  let out = '';
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes.charCodeAt(i);
    const e = ESCAPES[c];
    if (e !== undefined) out += `\\${e}`;
    else if (c < 0x20 || c >= 0x7f) out += `\\${c.toString(8).padStart(3, '0')}`;
    else out += bytes[i];
  }
  return out;
}

/** `prefix + path` (byte strings) C-quoted as git does (core.quotePath on) when it has to be. */
function quotePath(prefix: string, path: string): string {
  return needsQuote(prefix + path) ? `"${escapeBytes(prefix + path)}"` : prefix + path;
}

const mode6 = (mode: number) => mode.toString(8).padStart(6, '0');

/** git's default function-name rule: a line starting with a letter, `_` or `$`; at most 80 bytes, trailing whitespace trimmed. */
function funcName(line: string): string | null {
  const c = line.charCodeAt(0);
  const ok = (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f || c === 0x24;
  if (!ok) return null;
  let text = line.length > 80 ? line.slice(0, 80) : line;
  let end = text.length;
  while (end > 0) {
    const ch = text.charCodeAt(end - 1);
    if (ch === 0x20 || ch === 0x09 || ch === 0x0a || ch === 0x0d) end--;
    else break;
  }
  text = text.slice(0, end);
  return text;
}

function numOut(start: number, count: number): string {
  return `${count ? start : start - 1}${count !== 1 ? `,${count}` : ''}`;
}

const CHUNK = 1 << 20;

/**
 * Builds a long byte string in 1 MiB chunks (a string per chunk, not per line: a 40 MB patch as
 * a rope of per-line pieces costs several times its size before it is flattened).
 */
function byteStringWriter() {
  // Small to start with (most patches are small), growing to CHUNK.
  let chunk = Buffer.allocUnsafe(2048);
  let used = 0;
  let out = '';
  const flush = () => {
    if (used > 0) out += chunk.toString('latin1', 0, used);
    used = 0;
  };
  const write = (bytes: string) => {
    if (used + bytes.length > chunk.length) {
      flush();
      if (chunk.length < CHUNK) chunk = Buffer.allocUnsafe(Math.min(chunk.length * 4, CHUNK));
      if (bytes.length > chunk.length) {
        out += bytes;
        return;
      }
    }
    used += chunk.write(bytes, used, 'latin1');
  };
  return {
    write,
    /** Line `i` of `t` with a one-char prefix, and git's notice when it lacks a newline. */
    line(prefix: string, t: LineTable, i: number): void {
      write(prefix);
      const end = t.starts[i + 1]!;
      write(t.text.slice(t.starts[i], end));
      if (t.text.charCodeAt(end - 1) !== 0x0a) write('\n\\ No newline at end of file\n');
    },
    done(): string {
      flush();
      return out;
    },
  };
}

/**
 * What git does before a diff without context (xdi_diff): drop the common tail in 1 KiB blocks, giving
 * back the part of the last block up to its first newline. It changes where git places some changes.
 */
export function trimCommonTail(a: string, b: string): [string, string] {
  const cut = commonTailCut(a, b);
  return [a.slice(0, a.length - cut), b.slice(0, b.length - cut)];
}

/** How many bytes trimCommonTail takes off both ends (0 or up to a line start). */
export function commonTailCut(a: string, b: string): number {
  const blk = 1024;
  const smaller = Math.min(a.length, b.length);
  let trimmed = 0;
  while (
    blk + trimmed <= smaller &&
    a.slice(a.length - trimmed - blk, a.length - trimmed) === b.slice(b.length - trimmed - blk, b.length - trimmed)
  ) {
    trimmed += blk;
  }
  let recovered = 0;
  const at = a.length - trimmed;
  while (recovered < trimmed) if (a.charCodeAt(at + recovered++) === 0x0a) break;
  return trimmed - recovered;
}

/** Hunks of a text diff (git's grouping: changes at most 2*context lines apart share a hunk). */
function formatHunks(
  a: LineTable,
  b: LineTable,
  changes: readonly Change[],
  context: number,
): { text: string; hunks: HunkInfo[]; additions: number; deletions: number } {
  const out = byteStringWriter();
  const hunks: HunkInfo[] = [];
  let additions = 0;
  let deletions = 0;
  // Nearest function line strictly above each hunk, searched upwards once over the whole file.
  let funcSearchedTo = -1;
  let func: string | null = null;
  for (let first = 0; first < changes.length; ) {
    let last = first;
    while (last + 1 < changes.length) {
      const prev = changes[last]!;
      const next = changes[last + 1]!;
      if (next.start1 - (prev.start1 + prev.count1) > 2 * context) break;
      last++;
    }
    const fc = changes[first]!;
    const lc = changes[last]!;
    const s1 = Math.max(fc.start1 - context, 0);
    const s2 = Math.max(fc.start2 - context, 0);
    const tail = Math.min(context, a.n - (lc.start1 + lc.count1), b.n - (lc.start2 + lc.count2));
    const e1 = lc.start1 + lc.count1 + tail;
    const e2 = lc.start2 + lc.count2 + tail;
    for (let l = s1 - 1; l > funcSearchedTo; l--) {
      const name = funcName(lineAt(a, l));
      if (name !== null) {
        func = name;
        break;
      }
    }
    funcSearchedTo = Math.max(funcSearchedTo, s1 - 1);
    const range = `@@ -${numOut(s1 + 1, e1 - s1)} +${numOut(s2 + 1, e2 - s2)} @@`;
    const header = func ? `${range} ${func}` : range;
    hunks.push({
      header: decodeByteString(header),
      old_start: e1 - s1 ? s1 + 1 : s1,
      old_lines: e1 - s1,
      new_start: e2 - s2 ? s2 + 1 : s2,
      new_lines: e2 - s2,
    });
    out.write(`${header}\n`);
    let p2 = s2;
    for (let i = first; i <= last; i++) {
      const ch = changes[i]!;
      for (; p2 < ch.start2; p2++) out.line(' ', b, p2);
      for (let k = ch.start1; k < ch.start1 + ch.count1; k++) out.line('-', a, k);
      for (let k = ch.start2; k < ch.start2 + ch.count2; k++) out.line('+', b, k);
      deletions += ch.count1;
      additions += ch.count2;
      p2 = ch.start2 + ch.count2;
    }
    for (; p2 < e2; p2++) out.line(' ', b, p2);
    first = last + 1;
  }
  return { text: out.done(), hunks, additions, deletions };
}

/** The patch of one file pair, as `git diff` prints it (prefixes `a/` and `b/`). */
export function formatFilePatch(pair: FilePair, options: PatchOptions): FilePatch {
  const { old: one, new: two } = pair;
  const side = (two ?? one)!;
  const nameA = byteString((one ?? two)!.path);
  const nameB = byteString(side.path);
  const aOne = quotePath('a/', nameA);
  const bTwo = quotePath('b/', nameB);
  let header = `diff --git ${aOne} ${bTwo}\n`;
  let meta = '';
  if (pair.score !== undefined && one && two) {
    meta += `similarity index ${Math.floor((pair.score * 100) / MAX_SCORE)}%\n`;
    meta += `rename from ${quotePath('', nameA)}\nrename to ${quotePath('', nameB)}\n`;
  }
  const oldOid = one?.oid ?? NULL_OID;
  const newOid = two?.oid ?? NULL_OID;
  if (oldOid !== newOid) {
    meta += `index ${options.abbrev(oldOid)}..${options.abbrev(newOid)}`;
    if (one && two && one.mode === two.mode) meta += ` ${mode6(one.mode)}`;
    meta += '\n';
  }
  if (!one) header += `new file mode ${mode6(two!.mode)}\n${meta}`;
  else if (!two) header += `deleted file mode ${mode6(one.mode)}\n${meta}`;
  else {
    if (one.mode !== two.mode) header += `old mode ${mode6(one.mode)}\nnew mode ${mode6(two.mode)}\n`;
    header += meta;
  }
  const status: FileStatus = !one
    ? 'added'
    : !two
      ? 'deleted'
      : pair.score !== undefined
        ? 'renamed'
        : oldOid === newOid
          ? 'mode'
          : 'modified';
  const result: FilePatch = {
    hasFileLines: false,
    bytes: header,
    hunksAt: header.length,
    path: side.path,
    ...(one && two && one.path !== two.path ? { old_path: one.path } : {}),
    status,
    binary: false,
    additions: 0,
    deletions: 0,
    hunks: [],
  };
  if (oldOid === newOid) return result;
  const dataA = one?.data ?? new Uint8Array(0);
  const dataB = two?.data ?? new Uint8Array(0);
  const lblA = one ? aOne : '/dev/null';
  const lblB = two ? bTwo : '/dev/null';
  if (isBinary(dataA) || isBinary(dataB)) {
    result.binary = true;
    result.bytes += `Binary files ${lblA} and ${lblB} differ\n`;
    return result;
  }
  const textA = bytesToByteString(dataA);
  const textB = bytesToByteString(dataB);
  const cut = options.context === 0 ? commonTailCut(textA, textB) : 0;
  const a = lineTable(textA, textA.length - cut);
  const b = lineTable(textB, textB.length - cut);
  const changes = diffTables(a, b);
  if (changes.length === 0) return result;
  const hunks = formatHunks(a, b, changes, options.context);
  // git adds a tab after a name that has a space, so patch tools can tell where the name ends.
  const tabA = one && nameA.includes(' ') ? '\t' : '';
  const tabB = two && nameB.includes(' ') ? '\t' : '';
  result.bytes += `--- ${lblA}${tabA}\n+++ ${lblB}${tabB}\n`;
  result.hasFileLines = true;
  result.hunksAt = result.bytes.length;
  result.bytes += hunks.text;
  result.hunks = hunks.hunks;
  result.additions = hunks.additions;
  result.deletions = hunks.deletions;
  return result;
}
