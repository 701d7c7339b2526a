/**
 * The journal, `memory.jsonl.wal`: the changes made since the snapshot was written. Every mutation
 * is one append of its records and one `fdatasync` (`durable.ts`); compaction later folds the
 * journal into a new snapshot and starts a new journal.
 *
 *   {"mcpkitMemoryJournal":1,"base":{ino,size,mtimeNs},"prev":null}      header: the snapshot these records apply to
 *   {"op":"createEntities","entities":[…]}                               records (`GraphRecord`), one per line
 *   {"compactedTo":{ino,size,mtimeNs}}                                   marker: a compaction wrote this snapshot
 *
 * - `base` is the snapshot's `FileId` when the journal was started (null: there was no file).
 * - `prev` (written by a compaction) names the journal it replaced and how long it was, so that a
 *   process that had read all of it can adopt the new snapshot without reloading.
 * - The `compactedTo` marker is appended to the old journal just before the new snapshot is renamed
 *   into place: a process that finds that journal beside that snapshot (the compacting process died
 *   before replacing the journal) knows its records are already in the snapshot.
 * - A line is only ever whole once its `\n` is written: a reader applies complete lines only, and a
 *   writer holding the lock cuts off a torn last line (a writer killed mid-append, never acknowledged).
 */
import { closeSync, fdatasyncSync, fstatSync, ftruncateSync, openSync, readFileSync, readSync } from 'node:fs';
import type { Graph, GraphRecord } from '../graph.js';
import { appendDurably, appendDurablyTo, type FileId, type FileIdJson, idJson, replaceFile, sameIdJson } from './durable.js';

const JOURNAL_VERSION = 1;

export interface JournalHeader {
  mcpkitMemoryJournal: 1;
  /** The snapshot these records apply to (null: no snapshot file). */
  base: FileIdJson | null;
  /** Written by a compaction: the journal it replaced, so processes that had read all of it can follow without reloading. */
  prev: { base: FileIdJson | null; ino: string; size: number } | null;
}

/** How far this process has read a journal file. */
export interface JournalPosition {
  ino: bigint;
  /** Bytes read and applied (whole lines only). */
  offset: number;
  /** Where the records start (after the header line). */
  headerBytes: number;
}

/** Records in the journal, in bytes: what a compaction would fold in. */
export const journalRecordBytes = (pos: JournalPosition | null): number => (pos ? pos.offset - pos.headerBytes : 0);

function parseHeader(line: string): JournalHeader | undefined {
  try {
    const header = JSON.parse(line) as JournalHeader;
    return header?.mcpkitMemoryJournal === JOURNAL_VERSION ? header : undefined;
  } catch {
    return undefined;
  }
}

/** Starts a new journal (replacing any) holding only its header; returns where its records start. */
export function createJournal(path: string, base: FileId | null, prev: JournalHeader['prev']): JournalPosition {
  const line = `${JSON.stringify({ mcpkitMemoryJournal: JOURNAL_VERSION, base: idJson(base), prev })}\n`;
  const st = replaceFile(path, [line], 0o600);
  const bytes = Buffer.byteLength(line);
  return { ino: st.ino, offset: bytes, headerBytes: bytes };
}

/**
 * Appends `records` durably to the journal open at `fd` (`a+`) and advances `pos` past them. Whole
 * lines only ever end at `pos.offset`, so a journal that long needs no newline before them.
 * `atEnd`: the caller, under the lock, has just seen the file end at `pos.offset` (no `fstat` then).
 */
export function appendRecords(fd: number, pos: JournalPosition, records: readonly GraphRecord[], atEnd = false): void {
  let data = '';
  for (const r of records) data += `${JSON.stringify(r)}\n`;
  pos.offset += appendDurablyTo(fd, data, pos.offset, undefined, atEnd ? pos.offset : undefined);
}

/** Appends the marker saying that the snapshot `id` holds every record of this journal. */
export function markCompactedTo(path: string, id: FileId): void {
  appendDurably(path, `${JSON.stringify({ compactedTo: idJson(id) })}\n`);
}

/** Whether `body` (journal lines) holds a `compactedTo` marker naming the snapshot `id`. */
export function compactedTo(body: string, id: FileId | null): boolean {
  if (!body.includes('"compactedTo"')) return false;
  for (const line of body.split('\n')) {
    if (!line.startsWith('{"compactedTo"')) continue;
    try {
      if (sameIdJson((JSON.parse(line) as { compactedTo: FileIdJson }).compactedTo, id)) return true;
    } catch {}
  }
  return false;
}

/** A whole journal file as read at load. */
export interface JournalFile {
  ino: bigint;
  /** Undefined: not a journal this version can read (`text` is then all of it). */
  header: JournalHeader | undefined;
  headerBytes: number;
  /** The complete record lines after the header (each ends with `\n`). */
  body: string;
  /** All of the file, when it has no readable header. */
  text: string;
  /** Bytes of an incomplete last line. */
  tornBytes: number;
  /** Bytes up to the end of the last complete line. */
  completeBytes: number;
}

/**
 * Reads the whole journal at `path` (null: there is none). With `cutTorn` (only under the lock: nobody
 * is appending) an incomplete last line is cut off the file, and `onCut` is told how many bytes.
 */
export function readJournalFile(path: string, cutTorn: boolean, onCut: (bytes: number) => void): JournalFile | null {
  let fd: number;
  try {
    fd = openSync(path, cutTorn ? 'r+' : 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  try {
    const ino = fstatSync(fd, { bigint: true }).ino;
    const buf = readFileSync(fd);
    const nl = buf.indexOf(10);
    const header = nl >= 0 ? parseHeader(buf.toString('utf8', 0, nl)) : undefined;
    const complete = buf.lastIndexOf(10) + 1;
    if (!header) {
      return { ino, header, headerBytes: buf.length, body: '', text: buf.toString('utf8'), tornBytes: 0, completeBytes: buf.length };
    }
    if (cutTorn && buf.length > complete) {
      onCut(buf.length - complete);
      ftruncateSync(fd, complete);
      fdatasyncSync(fd);
    }
    return {
      ino,
      header,
      headerBytes: nl + 1,
      body: buf.toString('utf8', nl + 1, complete),
      text: '',
      tornBytes: buf.length - complete,
      completeBytes: complete,
    };
  } finally {
    closeSync(fd);
  }
}

/** What a tail read found. */
export type Tail =
  | { kind: 'lines'; text: string; bytes: number }
  /** The file at `path` is no longer the journal `pos` was reading (replaced by a compaction, or cut short). */
  | { kind: 'replaced' };

/**
 * The complete lines appended to the journal since `pos.offset` (not applied yet: the caller applies
 * them and advances `pos`). With `cutTorn` (under the lock) an incomplete last line is cut off.
 */
export function readTail(path: string, pos: JournalPosition, cutTorn: boolean, onCut: (bytes: number) => void): Tail {
  let fd: number;
  try {
    fd = openSync(path, cutTorn ? 'r+' : 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'replaced' };
    throw error;
  }
  try {
    const st = fstatSync(fd, { bigint: true });
    if (st.ino !== pos.ino) return { kind: 'replaced' };
    const size = Number(st.size);
    // Shorter than what we read: not the journal we know (cut by something else); reload.
    if (size < pos.offset) return { kind: 'replaced' };
    if (size === pos.offset) return { kind: 'lines', text: '', bytes: 0 };
    const buf = Buffer.allocUnsafe(size - pos.offset);
    const n = readSync(fd, buf, 0, buf.length, pos.offset);
    const complete = buf.subarray(0, n).lastIndexOf(10) + 1;
    if (cutTorn && size > pos.offset + complete) {
      onCut(size - pos.offset - complete);
      ftruncateSync(fd, pos.offset + complete);
      fdatasyncSync(fd);
    }
    return { kind: 'lines', text: buf.toString('utf8', 0, complete), bytes: complete };
  } finally {
    closeSync(fd);
  }
}

/** A journal line that could not be used. */
export interface BadJournalLine {
  text: string;
  reason: string;
  error?: unknown;
}

/**
 * Applies journal lines (each ends with `\n`) to `graph`. `lenient`: skip what no longer applies
 * (records replayed onto a snapshot someone else rewrote). Returns whether the graph changed;
 * lines that do not parse or apply go to `onBad`.
 */
export function applyJournalLines(graph: Graph, text: string, lenient: boolean, onBad: (bad: BadJournalLine) => void): boolean {
  let changed = false;
  let start = 0;
  for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', start)) {
    const line = text.slice(start, nl);
    start = nl + 1;
    if (line.trim() === '') continue;
    let record: GraphRecord | { compactedTo: unknown };
    try {
      record = JSON.parse(line);
    } catch (error) {
      onBad({ text: line, reason: 'unreadable journal line', error });
      continue;
    }
    if ('compactedTo' in record) continue;
    try {
      if (graph.apply(record, lenient)) changed = true;
    } catch (error) {
      onBad({ text: line, reason: 'journal record could not be applied', error });
    }
  }
  return changed;
}
