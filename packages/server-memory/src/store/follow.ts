/**
 * Keeping a `Replica` in step with the files: building it from a snapshot and its journal, and
 * following what other processes (every MCP client spawns its own server) append or compact.
 *
 * Before every call the store compares the snapshot's and the journal's `FileId`s with what it has
 * read (two `stat`s). Without the lock it only follows what it can prove: records appended to the
 * journal it is reading, a journal started on the snapshot it has, a compaction of a journal it had
 * read to the end. Anything else (a file rewritten by another program, a compaction it cannot
 * follow) needs a reload, which runs under the lock.
 */
import type { Logger } from '@mcpkit/protocol-core';
import { Graph } from '../graph.js';
import { type FileId, type FileIdJson, fileIdOf, sameId, sameIdJson, statOrNull } from './durable.js';
import { applyJournalLines, type BadJournalLine, compactedTo, type JournalHeader, readJournalFile, readTail } from './journal.js';
import type { MemoryFiles, Replica } from './replica.js';
import { readSnapshotSync, type SnapshotRead } from './snapshot.js';

/** Whether `catchUp` brought the replica up to date, or only a reload under the lock can. */
export type CatchUp = 'caught-up' | 'reload';

// ---------------------------------------------------------------------------------------------
// Loading: a snapshot, then the journal beside it (under the lock)
// ---------------------------------------------------------------------------------------------

/** Makes a freshly read snapshot the replica's state (journal not read yet). */
export function adoptSnapshot(r: Replica, files: MemoryFiles, graph: Graph, read: SnapshotRead, logger: Logger): void {
  r.graph = graph;
  r.base = read.id;
  r.snapshotBytes = read.bytes;
  r.journal = null;
  r.foreignRecords = read.parsed.foreignRecords;
  r.pendingCorrupt = read.parsed.corrupt;
  // Glued lines were read as their records; the next write rewrites them one per line.
  r.needsCompaction = read.parsed.corrupt.length > 0 || read.parsed.split.length > 0;
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
 * Reads the journal beside the snapshot the replica was just built from, and applies it. Under the
 * lock: a torn last line is cut off. A journal written for another snapshot is either already in it
 * (a compaction that died before replacing the journal) or replayed leniently onto it (the snapshot
 * was rewritten by another program); either way the next write compacts.
 */
export function loadJournal(r: Replica, files: MemoryFiles, logger: Logger): void {
  const journal = readJournalFile(files.wal, true, (bytes) =>
    logger.warn(`dropped an incomplete journal record (${bytes} bytes) left by an interrupted write`),
  );
  if (!journal) return;
  if (!journal.header) {
    logger.warn(`${files.wal} is not a journal this version can read; it is kept in ${files.corrupt}`);
    for (const line of journal.text.split('\n')) if (line.trim()) r.pendingCorrupt.push({ line: 0, text: line, reason: 'unknown journal' });
    r.needsCompaction = true;
    r.journal = { ino: journal.ino, offset: journal.completeBytes, headerBytes: journal.completeBytes };
    return;
  }
  r.journal = { ino: journal.ino, offset: journal.completeBytes, headerBytes: journal.headerBytes };
  if (sameIdJson(journal.header.base, r.base)) {
    applyJournalLines(r.graph, journal.body, false, badLine(r, files, logger));
  } else if (compactedTo(journal.body, r.base)) {
    // A compaction wrote this snapshot and was stopped before it replaced the journal: its records are in the snapshot.
    r.needsCompaction = true;
  } else {
    logger.warn(
      `${files.file} was changed by another program while ${files.wal} held changes not yet in it; replaying them onto the new file`,
    );
    applyJournalLines(r.graph, journal.body, true, badLine(r, files, logger));
    r.needsCompaction = true;
  }
}

/** Rebuilds the replica from the files in one synchronous stretch. Under the lock. */
export function reload(r: Replica, files: MemoryFiles, logger: Logger): void {
  const graph = new Graph();
  adoptSnapshot(r, files, graph, readSnapshotSync(files.file, graph), logger);
  loadJournal(r, files, logger);
}

// ---------------------------------------------------------------------------------------------
// Following other writers
// ---------------------------------------------------------------------------------------------

/**
 * Compares the files with what the replica has read and applies what other processes appended.
 * `locked`: we hold the lock (nobody is writing), so a torn last journal line can be cut off.
 */
export function catchUp(r: Replica, files: MemoryFiles, locked: boolean, logger: Logger): CatchUp {
  const snapshot = fileIdOf(files.file);
  const wal = statOrNull(files.wal);
  const journal = r.journal;
  if (sameId(snapshot, r.base)) {
    if (!wal) return journal === null ? 'caught-up' : 'reload';
    if (journal !== null && wal.ino === journal.ino) {
      if (Number(wal.size) === journal.offset) return 'caught-up';
      return readJournalTail(r, files, locked, logger);
    }
    // Another process started a journal on the snapshot we have.
    if (journal === null && followJournal(r, files, snapshot, (h) => h.prev === null && sameIdJson(h.base, r.base), logger)) {
      return 'caught-up';
    }
  } else if (wal && journal !== null && wal.ino !== journal.ino) {
    // Another process compacted; if we had read all of the journal it replaced, we have this snapshot already.
    const { base } = r;
    const followed = followJournal(
      r,
      files,
      snapshot,
      (h) =>
        sameIdJson(h.base, snapshot) &&
        h.prev !== null &&
        h.prev.ino === String(journal.ino) &&
        h.prev.size === journal.offset &&
        sameIdJson(h.prev.base, base),
      logger,
    );
    if (followed) {
      r.base = snapshot;
      r.snapshotBytes = Number(snapshot!.size);
      return 'caught-up';
    }
  }
  return 'reload';
}

/** Applies the complete lines appended since the replica's journal position. */
function readJournalTail(r: Replica, files: MemoryFiles, locked: boolean, logger: Logger): CatchUp {
  const journal = r.journal!;
  const tail = readTail(files.wal, journal, locked, (bytes) =>
    logger.warn(`dropped an incomplete journal record (${bytes} bytes) left by an interrupted write`),
  );
  if (tail.kind === 'replaced') return 'reload';
  if (applyJournalLines(r.graph, tail.text, false, badLine(r, files, logger))) r.externalChange = true;
  journal.offset += tail.bytes;
  return 'caught-up';
}

/** Reads a whole journal that starts where the replica is (checked by `accept` on its header) and applies it. */
function followJournal(
  r: Replica,
  files: MemoryFiles,
  snapshot: FileId | null,
  accept: (h: JournalHeader) => boolean,
  logger: Logger,
): boolean {
  const journal = readJournalFile(files.wal, false, () => {});
  if (!journal?.header || !accept(journal.header)) return false;
  // The snapshot must still be the one the header names (a compaction may have run since our stat).
  const base: FileIdJson | null = journal.header.base;
  if (!sameIdJson(base, fileIdOf(files.file)) || !sameIdJson(base, snapshot)) return false;
  r.journal = { ino: journal.ino, offset: journal.completeBytes, headerBytes: journal.headerBytes };
  if (applyJournalLines(r.graph, journal.body, false, badLine(r, files, logger))) r.externalChange = true;
  return true;
}

/** A journal line that cannot be used is kept for `.corrupt`, and the next write compacts. */
function badLine(r: Replica, files: MemoryFiles, logger: Logger): (bad: BadJournalLine) => void {
  return ({ text, reason, error }) => {
    logger.warn(
      reason === 'unreadable journal line'
        ? `journal ${files.wal} has an unreadable line; it is kept in ${files.corrupt}:`
        : `journal record could not be applied; it is kept in ${files.corrupt}:`,
      error,
    );
    r.pendingCorrupt.push({ line: 0, text, reason });
    r.needsCompaction = true;
  };
}
