/**
 * The file store: the graph lives in memory, and on disk as
 *
 * - `memory.jsonl`          the snapshot, in the reference's exact format (the reference loads it): `snapshot.ts`;
 * - `memory.jsonl.wal`      the journal of the changes since that snapshot: `journal.ts`;
 * - `memory.jsonl.lock`     a lock file held around every read-modify-write: `lock.ts`, `exclusive.ts`;
 * - `memory.jsonl.corrupt`  lines that could not be loaded, set aside verbatim (never through a symbolic link).
 *
 * When `memory.jsonl` is a symbolic link, all of these live beside its target and every write goes to the
 * target: the link stays a link, and a process opening the link shares the lock and journal with one opening the target.
 *
 * This class composes the pieces and decides when each runs:
 *
 * - `GraphFile` owns the graph and what was read of the files (load, catch-up, append, compaction);
 * - `GraphLoader` knows whether the graph can be used, and loads it (in the background, with progress);
 * - `WriteQueue` batches the writes: one journal append and one `fdatasync` for every mutation queued
 *   meanwhile (group commit), each answered only then;
 * - `CompactionScheduler` folds the journal in a while after the last write, as soon as it is large,
 *   and this class on close; `Poller` looks for other processes' changes while a client watches;
 * - `Exclusive` runs every step that touches the files under the lock, in one synchronous stretch, and keeps
 *   the lock across a burst of them (released a moment after the last).
 * A process killed at any point leaves the last acknowledged state.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { type Logger, silentLogger, ToolError } from '@mcpkit/protocol-core';
import type { Graph, Mutation } from '../graph.js';
import { memoryFiles } from './compaction.js';
import { CompactionScheduler } from './compactionScheduler.js';
import { followLinks } from './durable.js';
import { Exclusive } from './exclusive.js';
import type { FileStoreOptions } from './fileStoreOptions.js';
import { GraphFile } from './graphFile.js';
import { GraphLoader } from './graphLoader.js';
import { Poller } from './poller.js';
import { closedError, diskErrorText, logged, readError, saveError } from './storeErrors.js';
import type { GraphChange, GraphStore, ReadyOptions } from './types.js';
import { type AppliedBatch, applyBatch, type Outcome, WriteQueue } from './writeQueue.js';

export type { FileStoreOptions } from './fileStoreOptions.js';
export { ForeignFileError } from './snapshot.js';

/** `open`: answering calls; `closed`: refusing new ones (queued writes still finish, loading the graph if they must). */
type Lifecycle = 'open' | 'closed';

class FileStore implements GraphStore {
  readonly location: string;
  private readonly logger: Logger;
  private readonly file: GraphFile;
  private readonly exclusive: Exclusive;
  private readonly loader: GraphLoader;
  private readonly writes = new WriteQueue<Graph>((batch) => this.commit(batch));
  private readonly compactions: CompactionScheduler;
  private readonly poller: Poller;
  private readonly listeners = new Set<(change: GraphChange) => void>();
  private lifecycle: Lifecycle = 'open';

  constructor(private readonly options: FileStoreOptions) {
    // Everything lives beside the link's target, so that opening the link or the target shares one lock and one journal.
    this.location = followLinks(options.path);
    this.logger = options.logger ?? silentLogger;
    const files = memoryFiles(this.location);
    this.file = new GraphFile(files, this.logger);
    const timeoutMs = options.lockTimeoutMs ?? 30_000;
    this.exclusive = new Exclusive(files.lock, {
      staleMs: options.lockStaleMs ?? 10_000,
      timeoutMs,
      logger: this.logger,
      ...(options.lockLingerMs !== undefined ? { lingerMs: options.lockLingerMs } : {}),
      ...(options.lockClock ? { clock: options.lockClock } : {}),
    });
    this.loader = new GraphLoader(this.file, this.exclusive, {
      logger: this.logger,
      closed: () => this.lifecycle === 'closed',
      busy: () => this.writes.busy,
      loaded: () => this.setAsideAfterLoad(),
    });
    this.compactions = new CompactionScheduler(options.compactDelayMs ?? 2000, () => this.runCompaction());
    this.poller = new Poller(options.pollMs ?? 1000, () => this.poll());
  }

  async open(): Promise<void> {
    if (this.location !== this.options.path) {
      this.logger.info(`${this.options.path} is a symbolic link; reading and writing its target ${this.location}`);
    }
    mkdirSync(dirname(this.location), { recursive: true, mode: 0o700 });
    await this.loader.open(this.options.load ?? 'wait', this.options.openWhenLocked ?? 'wait');
  }

  ready: NonNullable<GraphStore['ready']> = (options?: ReadyOptions) =>
    this.lifecycle === 'closed' ? Promise.reject(closedError()) : this.loader.ready(options, (error) => this.readFailure(error));

  // Reads: caught up with other processes' writes, answered from memory -------------------------

  readGraph: GraphStore['readGraph'] = async (page) => (await this.sync()).read(page);
  searchNodes: GraphStore['searchNodes'] = async (query, page) => (await this.sync()).search(query, page);
  openNodes: GraphStore['openNodes'] = async (names, page) => (await this.sync()).open(names, page);

  /** Waits for the load, then catches up with the files. Takes the lock only when a reload is needed. */
  private async sync(): Promise<Graph> {
    if (this.lifecycle === 'closed') throw closedError();
    try {
      const loading = this.loader.ensure();
      if (loading) await loading;
      if (this.file.catchUp(false) === 'reload') await this.exclusive.run(() => this.catchUpLocked());
    } catch (error) {
      throw this.readFailure(error);
    }
    this.emit(false);
    return this.file.graph;
  }

  /** Under the lock: catches up with the files, reloading when that is the only way. */
  private catchUpLocked(): void {
    if (this.loader.current && this.file.catchUp(true) === 'caught-up') return;
    this.file.reload();
    this.loader.reloaded();
    if (this.file.needsCompaction) this.compactions.later();
  }

  /** A read that failed: the graph is reloaded before its next use unless it was a plain `ToolError` (the lock's time-out). */
  private readFailure(error: unknown): unknown {
    if (!(error instanceof ToolError)) this.loader.invalidate();
    return readError(error, this.logger);
  }

  private poll(): Promise<void> {
    return this.sync().then(
      () => {},
      (error) => this.logger.warn('could not check the memory file for changes:', error),
    );
  }

  // Writes: queued, applied in order under the lock, committed together (group commit) ----------

  createEntities: GraphStore['createEntities'] = (entities) => this.mutate((g) => g.createEntities(entities));
  createRelations: GraphStore['createRelations'] = (relations) => this.mutate((g) => g.createRelations(relations));
  addObservations: GraphStore['addObservations'] = (additions) => this.mutate((g) => g.addObservations(additions));
  deleteEntities: GraphStore['deleteEntities'] = (names) => this.mutate((g) => g.deleteEntities(names));
  deleteObservations: GraphStore['deleteObservations'] = (deletions) => this.mutate((g) => g.deleteObservations(deletions));
  deleteRelations: GraphStore['deleteRelations'] = (relations) => this.mutate((g) => g.deleteRelations(relations));

  private mutate<T>(run: (graph: Graph) => Mutation<T>): Promise<T> {
    if (this.lifecycle === 'closed') return Promise.reject(closedError());
    return this.writes.push<T>(run);
  }

  /**
   * Applies a batch of mutations in order, under the lock and caught up, and makes their records
   * durable together. A call that fails (a `ToolError`, raised before anything changes) fails alone;
   * a batch that cannot be saved fails whole and leaves the graph to be reloaded.
   */
  private async commit(batch: ((graph: Graph) => unknown)[]): Promise<Outcome[]> {
    let applied: AppliedBatch;
    try {
      const loading = this.loader.ensure();
      if (loading) await loading;
      applied = await this.exclusive.run(() => {
        this.catchUpLocked();
        const done = applyBatch(this.file.graph, batch);
        if (done.broken) this.loader.invalidate();
        if (done.records.length > 0) this.guarded(() => this.file.append(done.records));
        return done;
      });
    } catch (error) {
      this.loader.invalidate();
      const failure = saveError(error, this.location, this.logger);
      this.emit(false);
      return batch.map(() => ({ ok: false, error: failure }));
    }
    this.emit(applied.changed);
    if (applied.changed) {
      if (this.file.compactionDue) this.compactions.soon();
      else this.compactions.later();
    }
    return applied.outcomes;
  }

  /** Runs a step that writes the files; a failure leaves the graph to be reloaded (the files are consistent either way). */
  private guarded(write: () => void): void {
    try {
      write();
    } catch (error) {
      this.loader.invalidate();
      throw error;
    }
  }

  // Compaction: a while after the last write, as soon as the journal is large, and on close -----

  private compactNow(): void {
    this.compactions.cancel();
    this.guarded(() => this.file.compact());
  }

  /**
   * Right after a load (under the lock): sets aside unreadable lines and rewrites the snapshot when it
   * must. A disk that fails it (full: ENOSPC, EDQUOT; EIO) leaves the files as they were and the graph
   * as read from them: it is logged, the graph is served, and the next write tries again (and fails
   * alone if it can't). Anything else (a `.corrupt` that is a FIFO) fails the load, as it always did.
   */
  private setAsideAfterLoad(): void {
    if (!this.file.needsCompaction) return;
    this.compactions.cancel();
    try {
      this.file.compact();
    } catch (error) {
      if (diskErrorText(error) === undefined) {
        this.loader.invalidate();
        throw error;
      }
      this.logger.warn(
        'could not set aside the unreadable lines or rewrite the memory file (the file and the journal are kept as they were; will retry on the next write):',
        logged(error),
      );
    }
  }

  /** Catches up, then compacts if there is anything to fold in or set aside. Under the lock. */
  private foldJournal(): void {
    this.catchUpLocked();
    if (this.file.compactionUseful) this.compactNow();
  }

  private runCompaction(): void {
    this.exclusive
      .run(() => this.foldJournal())
      .then(() => this.emit(false))
      .catch((error) =>
        this.logger.warn(
          'could not fold the journal into the memory file (the file and the journal are kept as they were; will retry after the next write):',
          logged(error),
        ),
      );
  }

  // Watching, change events and closing ----------------------------------------------------------

  watch(): () => void {
    return this.poller.watch();
  }

  onChange(listener: (change: GraphChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private emit(localChange: boolean): void {
    if (this.file.takeExternalChange()) for (const l of this.listeners) l({ source: 'external' });
    if (localChange) for (const l of this.listeners) l({ source: 'local' });
  }

  async close(): Promise<void> {
    if (this.lifecycle === 'closed') return;
    this.lifecycle = 'closed';
    this.poller.stop();
    this.compactions.stop();
    // Queued writes finish first (waiting for the load if they must); a load nobody waits for stops.
    await this.writes.idle();
    if (this.loader.current && this.file.hasPendingFold) {
      try {
        await this.exclusive.run(() => this.foldJournal());
      } catch (error) {
        this.logger.warn(
          'could not fold the journal into the memory file on close (the file and the journal are kept as they were; it will be on the next start):',
          logged(error),
        );
      }
    }
    this.file.close();
    this.exclusive.dispose();
    this.listeners.clear();
  }
}

/**
 * Opens (or creates on first write) the memory file at `options.path`: creates its folder, loads the
 * snapshot and journal (or starts loading them, with `load: 'background'`), sets aside unreadable
 * lines, and throws `ForeignFileError` when the file is not a memory graph.
 */
export async function openFileStore(options: FileStoreOptions): Promise<GraphStore> {
  const store = new FileStore(options);
  await store.open();
  return store;
}
