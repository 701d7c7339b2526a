/**
 * The snapshot: `memory.jsonl` itself, in the reference's format. Read in chunks straight into the
 * graph (never the whole text in memory, and never the text and all its parsed objects at once);
 * written from the graph in chunks into a temp file that replaces it (`durable.ts`).
 *
 * Reading needs no lock: the snapshot is only ever replaced whole by `rename`, so an open file
 * descriptor reads one consistent version, and its `FileId` says which one it was.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import type { Graph } from '../graph.js';
import { type FileId, idOf } from './durable.js';
import { entityLine, GraphFileReader, type GraphSink, looksLikeGraphFile, type ParsedGraphFile, relationLine } from './jsonl.js';

/** The memory file holds something that is not a knowledge graph; we never overwrite it. */
export class ForeignFileError extends Error {
  override readonly name = 'ForeignFileError';
  constructor(
    readonly path: string,
    detail: string,
  ) {
    super(`${path} is not a knowledge-graph memory file (${detail}); refusing to load or overwrite it`);
  }
}

/** A snapshot read into a graph. */
export interface SnapshotRead {
  /** Which version of the file was read (null: there was no file; the graph is empty). */
  id: FileId | null;
  bytes: number;
  parsed: ParsedGraphFile;
}

/** How far a read has got, in bytes of the file. */
export type ReadProgress = (bytesRead: number, totalBytes: number) => void;

/** Bytes read at a time: enough to keep system calls rare; its text stays below the size V8 puts in large-object space (128 KiB). */
const CHUNK_BYTES = 64 * 1024;
/** Work between two turns of the event loop while loading in the background: a request waits at most about this long. */
const SLICE_MS = 2;

/**
 * Cuts bytes into text of whole lines, holding at most one chunk plus one incomplete line. A line
 * longer than the buffer grows it.
 */
class LineChunker {
  buf = Buffer.allocUnsafe(CHUNK_BYTES);
  /** Bytes at the start of `buf` that are the beginning of a line not yet complete. */
  carry = 0;

  /** Where the next read should go. */
  space(): { offset: number; length: number } {
    if (this.carry === this.buf.length) {
      const bigger = Buffer.allocUnsafe(this.buf.length * 2);
      this.buf.copy(bigger, 0, 0, this.carry);
      this.buf = bigger;
    }
    return { offset: this.carry, length: this.buf.length - this.carry };
  }

  /** `n` bytes were read into `space()`: the complete lines they end, as text ('' if none yet). */
  took(n: number): string {
    const end = this.carry + n;
    const lastNl = this.buf.lastIndexOf(10, end - 1);
    if (lastNl < 0) {
      this.carry = end;
      return '';
    }
    const text = this.buf.toString('utf8', 0, lastNl + 1);
    this.carry = end - lastNl - 1;
    this.buf.copy(this.buf, 0, lastNl + 1, end);
    return text;
  }

  /** End of file: the last line (it has no newline). */
  rest(): string {
    const text = this.buf.toString('utf8', 0, this.carry);
    this.carry = 0;
    return text;
  }
}

function finish(path: string, id: FileId | null, bytes: number, parsed: ParsedGraphFile): SnapshotRead {
  if (!looksLikeGraphFile(parsed)) {
    const first = parsed.corrupt[0];
    throw new ForeignFileError(path, first ? `line ${first.line}: ${first.reason}` : 'no entity or relation records');
  }
  return { id, bytes, parsed };
}

/** Where a reader puts what it reads: into `graph`, plain entity lines kept as they are (`plainLines.ts`). */
export const graphSink = (graph: Graph): GraphSink => ({
  entity: graph.loadEntity.bind(graph),
  relation: graph.loadRelation.bind(graph),
  plainEntity: graph.loadPlainEntity.bind(graph),
});

/**
 * Reads the open snapshot `fd` into `graph`, yielding (bytes read so far, and the total) after each
 * slice of about `SLICE_MS` of work, so that the async reader can give the event loop a turn. Reads
 * are synchronous: the file is usually in the page cache, where a `readSync` of a chunk takes
 * microseconds and a thread-pool round trip can take milliseconds on a busy machine.
 */
function* readSteps(path: string, fd: number, graph: Graph, out: { read?: SnapshotRead }): Generator<[number, number]> {
  const st = fstatSync(fd, { bigint: true });
  if (st.isDirectory()) throw new ForeignFileError(path, 'it is a directory');
  const total = Number(st.size);
  const reader = new GraphFileReader(graphSink(graph));
  const chunker = new LineChunker();
  let position = 0;
  for (;;) {
    const { offset, length } = chunker.space();
    const n = readSync(fd, chunker.buf, offset, length, position);
    if (n === 0) break;
    position += n;
    const text = chunker.took(n);
    for (let at = 0; at < text.length; ) {
      at = reader.lines(text, at, performance.now() + SLICE_MS);
      yield [position, Math.max(total, position)];
    }
    if (text === '') yield [position, Math.max(total, position)];
  }
  reader.last(chunker.rest());
  out.read = finish(path, idOf(st), position, reader.result);
}

function openOrNull(path: string): number | null {
  try {
    return openSync(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

const noFile = (graph: Graph): SnapshotRead => ({ id: null, bytes: 0, parsed: new GraphFileReader(graphSink(graph)).result });
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Reads the snapshot at `path` into `graph` (an empty one), giving the event loop a turn after each
 * slice of about `SLICE_MS` of work, so the process keeps answering while a large file loads.
 * `stop()` is asked between slices: true abandons the read (it then resolves with `null`). Throws
 * `ForeignFileError` when the file is not a memory graph (a directory, or no line is a record).
 */
export async function readSnapshot(
  path: string,
  graph: Graph,
  { onProgress, stop }: { onProgress?: ReadProgress; stop?: () => boolean } = {},
): Promise<SnapshotRead | null> {
  const fd = openOrNull(path);
  if (fd === null) return noFile(graph);
  try {
    const out: { read?: SnapshotRead } = {};
    for (const [loaded, total] of readSteps(path, fd, graph, out)) {
      onProgress?.(loaded, total);
      await nextTurn();
      if (stop?.()) return null;
    }
    return out.read!;
  } finally {
    closeSync(fd);
  }
}

/** `readSnapshot` in one synchronous stretch (for a reload under the lock). */
export function readSnapshotSync(path: string, graph: Graph): SnapshotRead {
  const fd = openOrNull(path);
  if (fd === null) return noFile(graph);
  try {
    const out: { read?: SnapshotRead } = {};
    for (const _ of readSteps(path, fd, graph, out));
    return out.read!;
  } finally {
    closeSync(fd);
  }
}

/**
 * The first line of the file at `path`, if it is within its first 64 KiB: a cheap look at whether
 * a file is a memory graph before loading it in the background. `undefined`: no such line (empty,
 * missing, or a first line longer than that).
 */
export function firstLine(path: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return undefined;
  }
  try {
    if (fstatSync(fd).isDirectory()) return undefined;
    const buf = Buffer.allocUnsafe(64 * 1024);
    const n = readSync(fd, buf, 0, buf.length, 0);
    const text = buf.toString('utf8', 0, n);
    const lines = text.split('\n');
    if (n === buf.length) lines.pop(); // may be cut
    return lines.map((l) => l.trim()).find((l) => l !== '');
  } finally {
    closeSync(fd);
  }
}

/**
 * The snapshot text for a graph, in chunks of about `CHUNK_BYTES` (for `writeTempFile`): the
 * foreign records first, then every entity, then every relation, one per line, no trailing newline.
 */
export function* snapshotChunks(foreignRecords: readonly string[], graph: Graph): Generator<string> {
  let parts: string[] = [];
  let size = 0;
  let first = true;
  const lines = function* () {
    yield* foreignRecords;
    yield* graph.entityLines(entityLine);
    for (const r of graph.relationList()) yield relationLine(r);
  };
  for (const line of lines()) {
    parts.push(line);
    size += line.length + 1;
    if (size >= CHUNK_BYTES) {
      yield (first ? '' : '\n') + parts.join('\n');
      first = false;
      parts = [];
      size = 0;
    }
  }
  if (parts.length > 0) yield (first ? '' : '\n') + parts.join('\n');
}
