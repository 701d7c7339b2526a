/**
 * Compaction: folding the journal into a new snapshot, so that the file the reference reads is
 * current and the journal stays short. It runs under the lock, after the writes it folds in were
 * acknowledged (never on a mutation's path, except the very first write of a new file and the write
 * after unreadable lines were found), at three moments the store chooses (`fileStore.ts`): a while
 * after the last write, when the journal has grown past `compactionDue`, and on close.
 *
 * The steps, each safe to be interrupted by a crash:
 *
 * 1. unreadable lines found at load are appended to `.corrupt` (never written through a link);
 * 2. the whole graph is written to a temp file and fsynced;
 * 3. `{"compactedTo": <its FileId>}` is appended to the old journal (a process that finds that journal
 *    beside that snapshot knows its records are in it);
 * 4. the temp file is renamed over the snapshot;
 * 5. a new journal, empty, is renamed over the old one; its header names the old one (`prev`), so
 *    that processes that had read all of it follow without reloading. The journal is kept, empty,
 *    so the next write is a plain append.
 */

import { renameSync } from 'node:fs';
import type { Logger } from '@mcpkit/protocol-core';
import { appendNoFollow, idJson, idOf, removeStaleTemps, statOrNull, writeTempFile } from './durable.js';
import { createJournal, journalRecordBytes, markCompactedTo } from './journal.js';
import type { MemoryFiles, Replica } from './replica.js';
import { snapshotChunks } from './snapshot.js';

/** A journal holding more than this many bytes of records is folded in at once (1 MiB, or a quarter of the snapshot if larger). */
export function compactionDue(r: Replica): boolean {
  return journalRecordBytes(r.journal) > Math.max(1024 * 1024, r.snapshotBytes / 4);
}

/** Whether there is anything to fold in or set aside. */
export function compactionUseful(r: Replica): boolean {
  return r.needsCompaction || journalRecordBytes(r.journal) > 0;
}

/** Writes the replica as a new snapshot (reference format) and starts an empty journal. Under the lock, caught up. */
export function compact(r: Replica, files: MemoryFiles, logger: Logger): void {
  setAsideCorrupt(r, files, logger);
  removeStaleTemps(files.file);
  const existing = statOrNull(files.file);
  const mode = existing ? Number(existing.mode & 0o777n) : 0o600;
  const temp = writeTempFile(files.file, snapshotChunks(r.foreignRecords, r.graph), mode);
  const snapshot = idOf(temp.stat);
  const prev = r.journal ? { base: idJson(r.base), ino: String(r.journal.ino), size: r.journal.offset } : null;
  if (r.journal) markCompactedTo(files.wal, snapshot);
  renameSync(temp.path, files.file);
  r.base = snapshot;
  r.snapshotBytes = Number(temp.stat.size);
  // Renamed over the old journal, then the folder is fsynced: both renames are durable from here.
  r.journal = createJournal(files.wal, snapshot, prev);
  r.needsCompaction = false;
}

/** Appends the lines that could not be loaded to `.corrupt`, verbatim, before a rewrite would drop them. */
function setAsideCorrupt(r: Replica, files: MemoryFiles, logger: Logger): void {
  if (r.pendingCorrupt.length === 0) return;
  const data = r.pendingCorrupt.map((c) => `${c.text}\n`).join('');
  appendNoFollow(files.corrupt, data, (target, aside) =>
    logger.warn(`${files.corrupt} was a symbolic link (to ${target}); not writing through it: moved it to ${aside}`),
  );
  logger.warn(
    `moved ${r.pendingCorrupt.length} unreadable line(s) of ${files.file} verbatim to ${files.corrupt} (lines ${r.pendingCorrupt.map((c) => c.line).join(', ')})`,
  );
  r.pendingCorrupt = [];
}
