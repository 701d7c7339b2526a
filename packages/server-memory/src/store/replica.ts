/**
 * What one process holds of the memory files: the graph, and which version of the snapshot and how
 * much of which journal it was built from. Loading fills it (`follow.ts`), following other writers
 * advances it (`follow.ts`), mutations append to its journal (`journal.ts`), and compaction writes
 * it out as a new snapshot (`compaction.ts`). The paths of the files sit beside it.
 */
import { Graph } from '../graph.js';
import type { FileId } from './durable.js';
import type { JournalPosition } from './journal.js';
import type { CorruptLine } from './jsonl.js';

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

export class Replica {
  graph = new Graph();
  /** The snapshot `graph` was built from (null: no snapshot file). */
  base: FileId | null = null;
  snapshotBytes = 0;
  /** The journal read so far (null: none beside `base`). */
  journal: JournalPosition | null = null;
  /** Lines of other record types found in the snapshot; written back verbatim at the top. */
  foreignRecords: string[] = [];
  /** Lines that could not be loaded, waiting to be set aside before the snapshot is rewritten. */
  pendingCorrupt: CorruptLine[] = [];
  /** The snapshot must be rewritten before the next append (lines to set aside, a journal to fold in). */
  needsCompaction = false;
  /** Another process changed the graph since listeners were last told. */
  externalChange = false;
}
