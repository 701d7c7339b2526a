/**
 * Compaction: folding the journal into a new snapshot, so that the file the reference reads is
 * current and the journal stays short. `GraphFile.compact` runs it under the lock, after the writes
 * it folds in were acknowledged (never on a mutation's path, except the very first write of a new
 * file and the write after unreadable lines were found), at three moments the store chooses
 * (`compactionScheduler.ts`): a while after the last write, when the journal has grown past
 * `compactionDue`, and on close.
 *
 * The steps, each safe to be interrupted by a crash:
 *
 * 1. the whole graph is written to a temp file, checked whole and fsynced;
 * 2. unreadable lines found at load are appended to `.corrupt` (never written through a link), once
 *    the new snapshot is known to fit: a compaction that fails there has set nothing aside twice;
 * 3. `{"compactedTo": <its FileId>}` is appended to the old journal (a process that finds that journal
 *    beside that snapshot knows its records are in it);
 * 4. the temp file is renamed over the snapshot;
 * 5. a new journal, empty, is renamed over the old one; its header names the old one (`prev`), so
 *    that processes that had read all of it follow without reloading. The journal is kept, empty,
 *    so the next write is a plain append.
 *
 * A step that fails (a full disk: ENOSPC, EDQUOT; EIO) throws. Before step 4 the temp file is removed
 * and the snapshot and journal are as they were: each append is all or nothing (`durable.ts`), and a
 * `compactedTo` marker naming a file that never took the snapshot's place matches nothing. After it,
 * the old journal's marker says its records are in the new snapshot. Either way nothing acknowledged
 * is lost, and the next compaction tries again.
 *
 * These functions hold no state: they return what the caller (`graphFile.ts`) now has.
 */

import { renameSync } from 'node:fs';
import type { Logger } from '@mcpkit/protocol-core';
import type { Graph } from '../graph.js';
import { appendNoFollow, type FileId, idJson, idOf, removeQuietly, removeStaleTemps, statOrNull, writeTempFile } from './durable.js';
import { createJournal, type JournalPosition, journalRecordBytes, markCompactedTo } from './journal.js';
import type { CorruptLine } from './jsonl.js';
import { snapshotChunks } from './snapshot.js';

/** The files of one memory graph, all beside the real file (a symbolic link's target). */
export interface MemoryFiles {
  /** The snapshot, in the reference's format. */
  file: string;
  /** The journal (`journal.ts`). */
  wal: string;
  /** Lines that could not be loaded, set aside verbatim (created when needed; never written through a link). */
  corrupt: string;
  /** The cross-process lock (`lock.ts`). */
  lock: string;
}

export function memoryFiles(file: string): MemoryFiles {
  return { file, wal: `${file}.wal`, corrupt: `${file}.corrupt`, lock: `${file}.lock` };
}

/** A journal holding more than this many bytes of records is folded in at once (1 MiB, or a quarter of the snapshot if larger). */
export function compactionDue(journal: JournalPosition | null, snapshotBytes: number): boolean {
  return journalRecordBytes(journal) > Math.max(1024 * 1024, snapshotBytes / 4);
}

/** What a compaction writes from. */
export interface CompactionInput {
  graph: Graph;
  /** Lines of other record types, written back verbatim at the top. */
  foreignRecords: readonly string[];
  /** Lines that could not be loaded: set aside in `.corrupt` before the snapshot without them takes the old one's place. */
  corrupt: readonly CorruptLine[];
  /** The snapshot the journal applies to, and how far it was read. */
  base: FileId | null;
  journal: JournalPosition | null;
}

/** What the files are after a compaction: the new snapshot, and the new (empty) journal beside it. */
export interface Compacted {
  base: FileId;
  snapshotBytes: number;
  journal: JournalPosition;
}

/** Writes `input.graph` as a new snapshot (reference format) and starts an empty journal. Under the lock, caught up. */
export function writeCompacted(files: MemoryFiles, input: CompactionInput, logger: Logger): Compacted {
  removeStaleTemps(files.file);
  const existing = statOrNull(files.file);
  const mode = existing ? Number(existing.mode & 0o777n) : 0o600;
  const temp = writeTempFile(files.file, snapshotChunks(input.foreignRecords, input.graph), mode);
  const snapshot = idOf(temp.stat);
  const { journal } = input;
  const prev = journal ? { base: idJson(input.base), ino: String(journal.ino), size: journal.offset } : null;
  try {
    setAsideCorrupt(files, input.corrupt, logger);
    if (journal) markCompactedTo(files.wal, snapshot);
    renameSync(temp.path, files.file);
  } catch (error) {
    removeQuietly(temp.path);
    throw error;
  }
  // Renamed over the old journal, then the folder is fsynced: both renames are durable from here.
  return { base: snapshot, snapshotBytes: Number(temp.stat.size), journal: createJournal(files.wal, snapshot, prev) };
}

/** Appends the lines that could not be loaded to `.corrupt`, verbatim, before a rewrite would drop them. */
function setAsideCorrupt(files: MemoryFiles, lines: readonly CorruptLine[], logger: Logger): void {
  if (lines.length === 0) return;
  const data = lines.map((c) => `${c.text}\n`).join('');
  appendNoFollow(files.corrupt, data, (target, aside) =>
    logger.warn(`${files.corrupt} was a symbolic link (to ${target}); not writing through it: moved it to ${aside}`),
  );
  logger.warn(
    `moved ${lines.length} unreadable line(s) of ${files.file} verbatim to ${files.corrupt} (lines ${lines.map((c) => c.line).join(', ')})`,
  );
}
