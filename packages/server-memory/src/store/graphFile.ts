/**
 * `GraphFile`: one process's copy of a memory graph and everything it knows about the files it came
 * from: which version of the snapshot it was built from, how much of which journal it has applied,
 * the lines waiting to be set aside, whether the snapshot must be rewritten. It is the only writer of
 * that state. The store (`fileStore.ts`) decides when each step runs and holds the lock around them.
 *
 * - `readSnapshot` reads the snapshot in chunks without the lock; `load` (under the lock) adopts it
 *   if it is still the file, else reads it again, then applies the journal beside it.
 * - `catchUp` follows what other processes (every MCP client spawns its own server) appended or
 *   compacted. It compares the snapshot's and the journal's `FileId`s with what it has read (two
 *   `stat`s). Without the lock it only follows what it can prove: records appended to the journal it
 *   is reading, a journal started on the snapshot it has, a compaction of a journal it had read to the
 *   end. Anything else (a file rewritten by another program, a compaction it cannot follow) needs
 *   `reload`, under the lock.
 * - `append` makes a mutation's records durable: one journal append and one `fdatasync`, through the
 *   journal held open while the file at its path is still that journal (no `open`/`close` per write).
 * - `compact` folds the journal into a new snapshot (`compaction.ts`).
 *
 * Every method but `readSnapshot` is synchronous: the store runs each under the lock in one stretch.
 */
import { closeSync, fstatSync, openSync } from 'node:fs';
import type { Logger } from '@mcpkit/protocol-core';
import { Graph, type GraphRecord } from '../graph.js';
import { type CompactionInput, compactionDue, type MemoryFiles, writeCompacted } from './compaction.js';
import { type FileId, type FileIdJson, fileIdOf, sameId, sameIdJson, statOrNull } from './durable.js';
import {
  appendRecords,
  applyJournalLines,
  type BadJournalLine,
  compactedTo,
  createJournal,
  type JournalHeader,
  type JournalPosition,
  journalRecordBytes,
  readJournalFile,
  readTail,
} from './journal.js';
import type { CorruptLine } from './jsonl.js';
import { type ReadProgress, readSnapshot, readSnapshotSync, type SnapshotRead } from './snapshot.js';

/** Whether `catchUp` brought the graph up to date, or only a reload under the lock can. */
export type CatchUp = 'caught-up' | 'reload';

export class GraphFile {
  private current = new Graph();
  /** The snapshot `graph` was built from (null: no snapshot file). */
  private base: FileId | null = null;
  private bytes = 0;
  /** The journal read so far (null: none beside `base`). */
  private journal: JournalPosition | null = null;
  /** Lines of other record types found in the snapshot; written back verbatim at the top. */
  private foreignRecords: string[] = [];
  /** Lines that could not be loaded, waiting to be set aside before the snapshot is rewritten. */
  private pendingCorrupt: CorruptLine[] = [];
  /** The snapshot must be rewritten before the next append (lines to set aside, a journal to fold in). */
  private mustCompact = false;
  /** Another process changed the graph since `takeExternalChange` was last asked. */
  private externalChange = false;
  /** Built from the files once already: building it again is taking in someone else's changes. */
  private loadedOnce = false;
  /** A snapshot read without the lock, waiting for `load` to read its journal under it. */
  private preloaded: { graph: Graph; read: SnapshotRead } | null = null;
  /**
   * The journal held open for appending, and its inode: every append under the lock goes through it
   * while the journal at the path is still that inode (`catchUp` has just checked, under the same
   * lock), so a write costs no `open`/`close`. Closed when the journal is replaced, and by `close`.
   */
  private appendFd: { fd: number; ino: bigint } | null = null;
  /**
   * The journal position whose offset was seen to be the end of the file under the lock, in the current
   * locked stretch (set by `catchUp(true)`, cleared by every `catchUp`): the append needs no `fstat` for it.
   */
  private endSeen: { pos: JournalPosition; offset: number } | null = null;

  constructor(
    readonly files: MemoryFiles,
    private readonly logger: Logger,
  ) {}

  /** The graph as of the last load, catch-up or append. */
  get graph(): Graph {
    return this.current;
  }

  /** Size of the snapshot the graph was built from, in bytes. */
  get snapshotBytes(): number {
    return this.bytes;
  }

  /** The snapshot must be rewritten (lines to set aside, a journal that belongs to another snapshot). */
  get needsCompaction(): boolean {
    return this.mustCompact;
  }

  /** The journal has grown large enough to fold in now. */
  get compactionDue(): boolean {
    return compactionDue(this.journal, this.bytes);
  }

  /** There is anything to fold in or set aside. */
  get compactionUseful(): boolean {
    return this.mustCompact || journalRecordBytes(this.journal) > 0;
  }

  /** There is a journal beside the snapshot, or something to set aside: closing should fold. */
  get hasPendingFold(): boolean {
    return this.journal !== null || this.mustCompact;
  }

  /** Whether another process changed the graph since the last time this was asked. */
  takeExternalChange(): boolean {
    const changed = this.externalChange;
    this.externalChange = false;
    return changed;
  }

  // -------------------------------------------------------------------------------------------
  // Loading: the snapshot without the lock, then its journal under it
  // -------------------------------------------------------------------------------------------

  /**
   * Reads the snapshot into a new graph without the lock, in chunks (at once when one is read and
   * not loaded yet). Returns false when `stop` ended it early. Throws `ForeignFileError`.
   */
  async readSnapshot(onProgress: ReadProgress, stop: () => boolean): Promise<boolean> {
    if (this.preloaded) return true;
    const graph = new Graph();
    const read = await readSnapshot(this.files.file, graph, { onProgress, stop });
    if (!read) return false;
    this.preloaded = { graph, read };
    return true;
  }

  /**
   * Under the lock: adopts the snapshot `readSnapshot` read if it is still the file (else reads it
   * again), and applies its journal. Afterwards `needsCompaction` says whether the snapshot must be rewritten.
   */
  load(): void {
    const pre = this.preloaded;
    this.preloaded = null;
    if (pre && sameId(fileIdOf(this.files.file), pre.read.id)) {
      this.adoptSnapshot(pre.graph, pre.read);
      this.loadJournal();
      this.loaded();
    } else {
      this.reload();
    }
  }

  /** A snapshot read without the lock waits for `load`. */
  get hasPreloaded(): boolean {
    return this.preloaded !== null;
  }

  /** Drops a snapshot read without the lock (the graph was rebuilt meanwhile). */
  dropPreloaded(): void {
    this.preloaded = null;
  }

  /** Rebuilds the graph from the files in one synchronous stretch. Under the lock. */
  reload(): void {
    const graph = new Graph();
    this.adoptSnapshot(graph, readSnapshotSync(this.files.file, graph));
    this.loadJournal();
    this.loaded();
  }

  private loaded(): void {
    if (this.loadedOnce) this.externalChange = true;
    this.loadedOnce = true;
  }

  /** Makes a freshly read snapshot the state (journal not read yet). */
  private adoptSnapshot(graph: Graph, read: SnapshotRead): void {
    const { files, logger } = this;
    this.current = graph;
    this.base = read.id;
    this.bytes = read.bytes;
    this.journal = null;
    this.foreignRecords = read.parsed.foreignRecords;
    this.pendingCorrupt = read.parsed.corrupt;
    // Glued lines were read as their records; the next write rewrites them one per line.
    this.mustCompact = read.parsed.corrupt.length > 0 || read.parsed.split.length > 0;
    if (read.parsed.split.length > 0) {
      logger.info(
        `${files.file} line(s) ${read.parsed.split.join(', ')} held several records on one line (appended to a file without a final newline); each was read`,
      );
    }
    for (const c of read.parsed.corrupt) {
      logger.warn(
        `${files.file} line ${c.line} is not a valid record (${c.reason}); it will be kept verbatim in ${files.corrupt}: ${c.text.slice(0, 120)}`,
      );
    }
  }

  /**
   * Reads the journal beside the snapshot just adopted, and applies it. Under the lock: a torn last
   * line is cut off. A journal written for another snapshot is either already in it (a compaction
   * that died before replacing the journal) or replayed leniently onto it (the snapshot was rewritten
   * by another program); either way the next write compacts.
   */
  private loadJournal(): void {
    const { files, logger } = this;
    const journal = readJournalFile(files.wal, true, (bytes) =>
      logger.warn(`dropped an incomplete journal record (${bytes} bytes) left by an interrupted write`),
    );
    if (!journal) return;
    if (!journal.header) {
      logger.warn(`${files.wal} is not a journal this version can read; it is kept in ${files.corrupt}`);
      for (const line of journal.text.split('\n'))
        if (line.trim()) this.pendingCorrupt.push({ line: 0, text: line, reason: 'unknown journal' });
      this.mustCompact = true;
      this.journal = { ino: journal.ino, offset: journal.completeBytes, headerBytes: journal.completeBytes };
      return;
    }
    this.journal = { ino: journal.ino, offset: journal.completeBytes, headerBytes: journal.headerBytes };
    if (sameIdJson(journal.header.base, this.base)) {
      applyJournalLines(this.current, journal.body, false, this.badLine);
    } else if (compactedTo(journal.body, this.base)) {
      // A compaction wrote this snapshot and was stopped before it replaced the journal: its records are in the snapshot.
      this.mustCompact = true;
    } else {
      logger.warn(
        `${files.file} was changed by another program while ${files.wal} held changes not yet in it; replaying them onto the new file`,
      );
      applyJournalLines(this.current, journal.body, true, this.badLine);
      this.mustCompact = true;
    }
  }

  // -------------------------------------------------------------------------------------------
  // Following other writers
  // -------------------------------------------------------------------------------------------

  /**
   * Compares the files with what has been read and applies what other processes appended.
   * `locked`: we hold the lock (nobody is writing), so a torn last journal line can be cut off.
   */
  catchUp(locked: boolean): CatchUp {
    this.endSeen = null;
    const snapshot = fileIdOf(this.files.file);
    const wal = statOrNull(this.files.wal);
    // A journal we hold open that is no longer at the path is not written again: let its inode go.
    if (this.appendFd && this.appendFd.ino !== wal?.ino) this.closeAppendFd();
    const journal = this.journal;
    if (sameId(snapshot, this.base)) {
      if (!wal) return journal === null ? 'caught-up' : 'reload';
      if (journal !== null && wal.ino === journal.ino) {
        if (Number(wal.size) === journal.offset) {
          if (locked) this.sawEnd(journal);
          return 'caught-up';
        }
        return this.readJournalTail(journal, locked);
      }
      // Another process started a journal on the snapshot we have.
      const { base } = this;
      if (journal === null && this.followJournal(snapshot, (h) => h.prev === null && sameIdJson(h.base, base))) return 'caught-up';
    } else if (wal && journal !== null && wal.ino !== journal.ino) {
      // Another process compacted; if we had read all of the journal it replaced, we have this snapshot already.
      const { base } = this;
      const followed = this.followJournal(
        snapshot,
        (h) =>
          sameIdJson(h.base, snapshot) &&
          h.prev !== null &&
          h.prev.ino === String(journal.ino) &&
          h.prev.size === journal.offset &&
          sameIdJson(h.prev.base, base),
      );
      if (followed) {
        this.base = snapshot;
        this.bytes = Number(snapshot!.size);
        return 'caught-up';
      }
    }
    return 'reload';
  }

  /** Applies the complete lines appended since `journal.offset`. */
  private readJournalTail(journal: JournalPosition, locked: boolean): CatchUp {
    const tail = readTail(this.files.wal, journal, locked, (bytes) =>
      this.logger.warn(`dropped an incomplete journal record (${bytes} bytes) left by an interrupted write`),
    );
    if (tail.kind === 'replaced') return 'reload';
    if (applyJournalLines(this.current, tail.text, false, this.badLine)) this.externalChange = true;
    journal.offset += tail.bytes;
    // Under the lock a torn last line was cut off: the file now ends where we have read.
    if (locked) this.sawEnd(journal);
    return 'caught-up';
  }

  private sawEnd(pos: JournalPosition): void {
    this.endSeen = { pos, offset: pos.offset };
  }

  /** Reads a whole journal that starts where we are (checked by `accept` on its header) and applies it. */
  private followJournal(snapshot: FileId | null, accept: (h: JournalHeader) => boolean): boolean {
    const journal = readJournalFile(this.files.wal, false, () => {});
    if (!journal?.header || !accept(journal.header)) return false;
    // The snapshot must still be the one the header names (a compaction may have run since our stat).
    const base: FileIdJson | null = journal.header.base;
    if (!sameIdJson(base, fileIdOf(this.files.file)) || !sameIdJson(base, snapshot)) return false;
    this.journal = { ino: journal.ino, offset: journal.completeBytes, headerBytes: journal.headerBytes };
    if (applyJournalLines(this.current, journal.body, false, this.badLine)) this.externalChange = true;
    return true;
  }

  /** A journal line that cannot be used is kept for `.corrupt`, and the next write compacts. */
  private readonly badLine = ({ text, reason, error }: BadJournalLine): void => {
    this.logger.warn(
      reason === 'unreadable journal line'
        ? `journal ${this.files.wal} has an unreadable line; it is kept in ${this.files.corrupt}:`
        : `journal record could not be applied; it is kept in ${this.files.corrupt}:`,
      error,
    );
    this.pendingCorrupt.push({ line: 0, text, reason });
    this.mustCompact = true;
  };

  // -------------------------------------------------------------------------------------------
  // Writing
  // -------------------------------------------------------------------------------------------

  /**
   * Makes `records` (already applied to `graph`) durable: one append and one `fdatasync`. Under the
   * lock, caught up. The first write of a new file creates it (the reference can read it from then
   * on), and lines waiting to be set aside are set aside before anything else is written: both compact instead.
   */
  append(records: readonly GraphRecord[]): void {
    if (this.base === null || this.mustCompact) {
      this.compact();
      return;
    }
    if (!this.journal) {
      this.journal = createJournal(this.files.wal, this.base, null);
      this.sawEnd(this.journal);
    }
    const journal = this.journal;
    const atEnd = this.endSeen?.pos === journal && this.endSeen.offset === journal.offset;
    appendRecords(this.appendFdFor(journal), journal, records, atEnd);
    if (atEnd) this.sawEnd(journal);
  }

  /** The journal `pos` reads, open for appending (opened now unless it is held open already). */
  private appendFdFor(pos: JournalPosition): number {
    if (this.appendFd?.ino === pos.ino) return this.appendFd.fd;
    this.closeAppendFd();
    const fd = openSync(this.files.wal, 'a+');
    try {
      this.appendFd = { fd, ino: fstatSync(fd, { bigint: true }).ino };
    } catch (error) {
      closeSync(fd);
      throw error;
    }
    return fd;
  }

  private closeAppendFd(): void {
    if (!this.appendFd) return;
    const { fd } = this.appendFd;
    this.appendFd = null;
    closeSync(fd);
  }

  /** Lets go of the files held open (the store is closing). */
  close(): void {
    this.closeAppendFd();
  }

  /** Writes the graph as a new snapshot and starts an empty journal. Under the lock, caught up. */
  compact(): void {
    const input: CompactionInput = {
      graph: this.current,
      foreignRecords: this.foreignRecords,
      corrupt: this.pendingCorrupt,
      base: this.base,
      journal: this.journal,
    };
    const done = writeCompacted(this.files, input, this.logger);
    this.pendingCorrupt = [];
    this.closeAppendFd(); // the old journal, replaced
    this.endSeen = null;
    this.base = done.base;
    this.bytes = done.snapshotBytes;
    this.journal = done.journal;
    this.mustCompact = false;
  }
}
