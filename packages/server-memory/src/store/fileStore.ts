/**
 * The file store: the graph lives in memory, and on disk as
 *
 * - `memory.jsonl`          the snapshot, in the reference's exact format (the reference loads it): `snapshot.ts`;
 * - `memory.jsonl.wal`      the journal of the changes since that snapshot: `journal.ts`;
 * - `memory.jsonl.lock`     a lock file held around every read-modify-write: `lock.ts`;
 * - `memory.jsonl.corrupt`  lines that could not be loaded, set aside verbatim (created when needed;
 *                           never written through a symbolic link).
 *
 * When `memory.jsonl` is a symbolic link, all of these live beside its target and every write goes to
 * the target (temp file beside it, renamed over it): the link stays a link, and a process opening the
 * link shares the lock and the journal with one opening the target.
 *
 * This file only composes the pieces, in the order a store lives:
 *
 * 1. Opening: a quick look at the file, then the load, awaited or left running in the background;
 *    after a background load, the search index is built in the next idle moment.
 * 2. Loading: the snapshot read in chunks without the lock (`snapshot.ts`), then the journal under
 *    it (`follow.ts`). Every call waits for the load; `ready()` tells how far it is.
 * 3. Reads: catch up with other processes' writes (`follow.ts`), answer from memory.
 * 4. Writes: queued (`writeQueue.ts`), applied in order under the lock, and made durable by one
 *    journal append and one `fdatasync` for every mutation queued meanwhile (group commit). A
 *    mutation answers only then.
 * 5. Compaction (`compaction.ts`): the journal is folded into the snapshot a while after the last
 *    write, as soon as it is large, and on close, so the file the reference reads is at most that far
 *    behind while the server runs, and current after it stops.
 * 6. Watching (polling for other processes' changes while a client is subscribed) and closing.
 * 7. The lock around all of it, and change events.
 *
 * A process killed at any point leaves the last acknowledged state: a half-written journal line is
 * ignored and cut off by the next writer, and a snapshot is replaced only by `rename`.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { type Logger, silentLogger, ToolError } from '@mcpkit/protocol-core';
import { Graph, type GraphRecord, type Mutation } from '../graph.js';
import { compact, compactionDue, compactionUseful } from './compaction.js';
import { fileIdOf, followLinks, sameId } from './durable.js';
import { adoptSnapshot, catchUp, loadJournal, reload } from './follow.js';
import { appendRecords, createJournal } from './journal.js';
import { isRecordLine } from './jsonl.js';
import { FileLock, LockTimeoutError, lockTimeoutText } from './lock.js';
import { LoadTracker } from './progress.js';
import { type MemoryFiles, memoryFiles, Replica } from './replica.js';
import { ForeignFileError, firstLine, readSnapshot, type SnapshotRead } from './snapshot.js';
import type { GraphChange, GraphStore, ReadyOptions } from './types.js';
import { type Outcome, WriteQueue } from './writeQueue.js';

export { ForeignFileError } from './snapshot.js';

export interface FileStoreOptions {
  /** Absolute path of the memory file (`…/memory.jsonl`). */
  path: string;
  logger?: Logger;
  /**
   * How `openFileStore` loads the graph. `wait` (default): it resolves with the graph loaded.
   * `background`: it resolves once the file is known to be a memory graph (its first line is a
   * record; otherwise it reads on to find out), and the graph loads in the background; every call
   * waits for it, and `ready()` reports how far it is. The CLI does this, so that `initialize` is
   * answered at once whatever the size of the file.
   */
  load?: 'wait' | 'background';
  /** Fold the journal into the snapshot this long after the last write. Default 2000 ms. */
  compactDelayMs?: number;
  /**
   * A lock this old whose owner cannot be checked (another host) is taken over. A lock on this host
   * whose owner is gone (dead, or its pid now belongs to another process) is replaced at once. Default 10000 ms.
   */
  lockStaleMs?: number;
  /** A call gives up waiting for the lock after this long (a clear `ToolError`). Default 30000 ms. */
  lockTimeoutMs?: number;
  /**
   * With `load: 'wait'`, when another process holds the lock at open: `wait` for it (`openFileStore`
   * resolves with the graph loaded), or `defer`: resolve once the snapshot is read, and read the
   * journal on the first call, which waits for the lock. Default `wait`.
   */
  openWhenLocked?: 'wait' | 'defer';
  /** How often to look for other processes' changes while `watch()` handles are held. Default 1000 ms. */
  pollMs?: number;
  /**
   * @deprecated Ignored. Graphs below this size used to be rewritten whole on every mutation; every
   * mutation now goes through the journal, whatever the size.
   */
  smallFileBytes?: number;
}

const closedError = () => new Error('the memory store is closed');

/** After a background load, the search index is built this long after the load (if nothing is being written then). */
const INDEX_IDLE_MS = 200;

class FileStore implements GraphStore {
  readonly location: string;
  /** The path as given (a symbolic link to `location`, or `location` itself). */
  private readonly configuredPath: string;
  private readonly files: MemoryFiles;
  private readonly logger: Logger;
  private readonly loadMode: 'wait' | 'background';
  private readonly compactDelayMs: number;
  private readonly lock: FileLock;
  private readonly lockTimeoutMs: number;
  private readonly openWhenLocked: 'wait' | 'defer';
  private readonly pollMs: number;

  private readonly replica = new Replica();
  /** The replica may be off (not loaded yet, a failed write, an exception mid-change): load it before the next use. */
  private invalid = true;
  /** Loaded once already: a later reload is a change made by someone else. */
  private loadedOnce = false;
  /** The load running now. */
  private loading: Promise<void> | null = null;
  /** A snapshot read without the lock, waiting for its journal to be read under it. */
  private preloaded: { graph: Graph; read: SnapshotRead } | null = null;
  private readonly tracker = new LoadTracker();

  private readonly writes = new WriteQueue<Graph>((batch) => this.commit(batch));
  /** Sections that hold the lock, one at a time in this process. */
  private chain: Promise<unknown> = Promise.resolve();
  private compactTimer: NodeJS.Timeout | undefined;
  private compactSoonPending = false;
  private pollTimer: NodeJS.Timeout | undefined;
  private watchers = 0;
  private polling = false;
  private readonly listeners = new Set<(change: GraphChange) => void>();
  private closed = false;

  constructor(options: FileStoreOptions) {
    this.configuredPath = options.path;
    // Everything lives beside the link's target, so that opening the link or the target shares one lock and one journal.
    this.location = followLinks(options.path);
    this.files = memoryFiles(this.location);
    this.logger = options.logger ?? silentLogger;
    this.loadMode = options.load ?? 'wait';
    this.compactDelayMs = options.compactDelayMs ?? 2000;
    this.lockTimeoutMs = options.lockTimeoutMs ?? 30_000;
    this.lock = new FileLock(this.files.lock, { staleMs: options.lockStaleMs ?? 10_000, timeoutMs: this.lockTimeoutMs });
    this.openWhenLocked = options.openWhenLocked ?? 'wait';
    this.pollMs = options.pollMs ?? 1000;
  }

  // -------------------------------------------------------------------------------------------
  // 1. Opening
  // -------------------------------------------------------------------------------------------

  async open(): Promise<void> {
    if (this.location !== this.configuredPath) {
      this.logger.info(`${this.configuredPath} is a symbolic link; reading and writing its target ${this.location}`);
    }
    mkdirSync(dirname(this.location), { recursive: true, mode: 0o700 });
    if (this.loadMode === 'background') {
      // One record line makes the file a memory graph: the rest can load while the server answers.
      const line = firstLine(this.files.file);
      if (line === undefined || !isRecordLine(line)) await this.readSnapshotUnlocked(); // throws ForeignFileError at once
      // A failure reaches the calls that wait for it.
      void this.ensureLoaded()?.then(
        () => this.indexWhenIdle(),
        () => {},
      );
      return;
    }
    await this.readSnapshotUnlocked();
    if (this.openWhenLocked === 'wait') {
      await this.exclusive(() => this.finishLoad());
    } else if (this.lock.tryAcquire()) {
      try {
        this.finishLoad();
      } finally {
        this.lock.release();
      }
    } else {
      // Still `invalid`: the first call reads the journal, waiting for the lock up to `lockTimeoutMs`.
      this.logger.info(`${this.lock.path} is held by ${this.lock.holder()}; the graph will be loaded on the first call`);
    }
  }

  /**
   * Builds the search index once the process is idle after a background load, so that the first
   * `search_nodes` answers from it instead of building it (at 100k entities that is 0.3-0.5 s of CPU,
   * spent here while the client is still thinking). Waits while writes are queued; gives up when
   * the store closes or the graph is reloaded meanwhile (its first search builds it then).
   */
  private indexWhenIdle(tries = 3): void {
    const graph = this.replica.graph;
    const timer = setTimeout(() => {
      if (this.closed || this.invalid || this.replica.graph !== graph) return;
      if (this.writes.busy) {
        if (tries > 1) this.indexWhenIdle(tries - 1);
        return;
      }
      const started = performance.now();
      graph.prepareSearch();
      this.logger.debug(`built the search index in ${Math.round(performance.now() - started)} ms`);
    }, INDEX_IDLE_MS);
    timer.unref();
  }

  // -------------------------------------------------------------------------------------------
  // 2. Loading
  // -------------------------------------------------------------------------------------------

  ready: NonNullable<GraphStore['ready']> = (options?: ReadyOptions) => {
    if (this.closed) return Promise.reject(closedError());
    const loading = this.ensureLoaded();
    if (!loading) return Promise.resolve();
    return this.tracker.wait(
      loading.catch((error: unknown) => {
        throw this.readError(error);
      }),
      options,
    );
  };

  /** Starts loading the replica when it needs it; the promise settles when it is loaded (undefined: it is). */
  private ensureLoaded(): Promise<void> | undefined {
    if (!this.invalid) return undefined;
    this.loading ??= this.load().finally(() => {
      this.loading = null;
    });
    return this.loading;
  }

  private async load(): Promise<void> {
    const started = performance.now();
    await this.readSnapshotUnlocked();
    if (!this.invalid) return;
    const holder = this.lock.holder();
    if (holder !== 'nobody') this.logger.info(`${this.lock.path} is held by ${holder}; calls wait for it until the graph is loaded`);
    await this.exclusive(() => this.finishLoad());
    this.logger.info(`loaded ${this.location} (${mebibytes(this.replica.snapshotBytes)}) in ${Math.round(performance.now() - started)} ms`);
  }

  /**
   * Reads the snapshot into a new graph without the lock, in chunks, reporting progress. Stops early
   * when the store is closed and no write waits for the graph. Throws `ForeignFileError`.
   */
  private async readSnapshotUnlocked(): Promise<void> {
    if (this.preloaded) return;
    const graph = new Graph();
    this.tracker.reset();
    const read = await readSnapshot(this.files.file, graph, {
      onProgress: (loaded, total) => this.tracker.report(loaded, total),
      stop: () => this.closed && !this.writes.busy,
    });
    if (!read) throw closedError();
    this.preloaded = { graph, read };
  }

  /**
   * Under the lock: adopts the snapshot read without it if it is still the file (else reads it
   * again), reads the journal, and sets aside unreadable lines (a compaction) when there are any.
   */
  private finishLoad(): void {
    if (this.closed && !this.writes.busy) throw closedError();
    const pre = this.preloaded;
    this.preloaded = null;
    if (!this.invalid) return; // a call reloaded meanwhile
    if (pre && sameId(fileIdOf(this.files.file), pre.read.id)) {
      adoptSnapshot(this.replica, this.files, pre.graph, pre.read, this.logger);
      loadJournal(this.replica, this.files, this.logger);
    } else {
      reload(this.replica, this.files, this.logger);
    }
    this.loaded();
    if (this.replica.needsCompaction) this.compactNow();
  }

  /** The replica was (re)built from the files. */
  private loaded(): void {
    this.invalid = false;
    if (this.loadedOnce) this.replica.externalChange = true;
    this.loadedOnce = true;
  }

  // -------------------------------------------------------------------------------------------
  // 3. Reads
  // -------------------------------------------------------------------------------------------

  readGraph: GraphStore['readGraph'] = async (page) => {
    await this.sync();
    return this.replica.graph.read(page);
  };

  searchNodes: GraphStore['searchNodes'] = async (query, page) => {
    await this.sync();
    return this.replica.graph.search(query, page);
  };

  openNodes: GraphStore['openNodes'] = async (names, page) => {
    await this.sync();
    return this.replica.graph.open(names, page);
  };

  /** Waits for the load, then brings the replica up to date with the files. Takes the lock only when a reload is needed. */
  private async sync(): Promise<void> {
    if (this.closed) throw closedError();
    try {
      const loading = this.ensureLoaded();
      if (loading) await loading;
      if (catchUp(this.replica, this.files, false, this.logger) === 'reload') await this.exclusive(() => this.catchUpLocked());
    } catch (error) {
      throw this.readError(error);
    }
    this.emitPending(false);
  }

  /** Under the lock: catches up with the files, reloading when that is the only way. */
  private catchUpLocked(): void {
    if (!this.invalid && catchUp(this.replica, this.files, true, this.logger) === 'caught-up') return;
    reload(this.replica, this.files, this.logger);
    this.loaded();
    if (this.replica.needsCompaction) this.scheduleCompaction();
  }

  private readError(error: unknown): unknown {
    if (error instanceof ForeignFileError) {
      this.invalid = true;
      return this.foreignError(error);
    }
    if (!(error instanceof ToolError)) this.invalid = true;
    return error;
  }

  // -------------------------------------------------------------------------------------------
  // 4. Writes: queued, applied in order under the lock, committed together (group commit)
  // -------------------------------------------------------------------------------------------

  createEntities: GraphStore['createEntities'] = (entities) => this.mutate((g) => g.createEntities(entities));
  createRelations: GraphStore['createRelations'] = (relations) => this.mutate((g) => g.createRelations(relations));
  addObservations: GraphStore['addObservations'] = (additions) => this.mutate((g) => g.addObservations(additions));
  deleteEntities: GraphStore['deleteEntities'] = (names) => this.mutate((g) => g.deleteEntities(names));
  deleteObservations: GraphStore['deleteObservations'] = (deletions) => this.mutate((g) => g.deleteObservations(deletions));
  deleteRelations: GraphStore['deleteRelations'] = (relations) => this.mutate((g) => g.deleteRelations(relations));

  private mutate<T>(run: (graph: Graph) => Mutation<T>): Promise<T> {
    if (this.closed) return Promise.reject(closedError());
    return this.writes.push<T>(run);
  }

  /**
   * Applies a batch of mutations, in order, under the lock and caught up with the files, and makes
   * their records durable together. A call that fails (a `ToolError`, raised before anything
   * changes) fails alone; a batch that cannot be saved fails whole and leaves the replica to be reloaded.
   */
  private async commit(batch: ((graph: Graph) => unknown)[]): Promise<Outcome[]> {
    let outcomes: Outcome[] = [];
    let changed = false;
    try {
      const loading = this.ensureLoaded();
      if (loading) await loading;
      await this.exclusive(() => {
        this.catchUpLocked();
        const records: GraphRecord[] = [];
        outcomes = batch.map((run): Outcome => {
          try {
            const m = run(this.replica.graph) as Mutation<unknown>;
            for (const r of m.records) records.push(r);
            changed ||= m.changed;
            return { ok: true, value: m.value };
          } catch (error) {
            // A ToolError is raised before anything changes; anything else may have left a half-applied change.
            if (!(error instanceof ToolError)) this.invalid = true;
            return { ok: false, error };
          }
        });
        if (records.length > 0) this.persist(records);
      });
    } catch (error) {
      this.invalid = true;
      const failure = this.saveError(error);
      this.emitPending(false);
      return batch.map(() => ({ ok: false, error: failure }));
    }
    this.emitPending(changed);
    if (changed) {
      if (compactionDue(this.replica)) this.compactSoon();
      else this.scheduleCompaction();
    }
    return outcomes;
  }

  /** Makes `records` durable: one append and one `fdatasync`. Called under the lock with the graph already changed. */
  private persist(records: GraphRecord[]): void {
    const r = this.replica;
    // The first write of a new file creates it (the reference can read it from then on); lines waiting
    // to be set aside are set aside before anything else is written.
    if (r.base === null || r.needsCompaction) {
      this.compactNow();
      return;
    }
    r.journal ??= createJournal(this.files.wal, r.base, null);
    appendRecords(this.files.wal, r.journal, records);
  }

  private saveError(error: unknown): Error {
    if (error instanceof ToolError) return error;
    if (error instanceof ForeignFileError) return this.foreignError(error);
    this.logger.error(`could not update ${this.location}:`, error);
    const code = (error as NodeJS.ErrnoException)?.code;
    return new ToolError(
      `Could not save the knowledge graph${code ? ` (${code})` : ''}; nothing was changed. The server log has the details.`,
    );
  }

  private foreignError(error: ForeignFileError): ToolError {
    this.logger.error(error.message);
    return new ToolError('The memory file was replaced by something that is not a knowledge graph; refusing to read or overwrite it.');
  }

  // -------------------------------------------------------------------------------------------
  // 5. Compaction: a while after the last write, as soon as the journal is large, and on close
  // -------------------------------------------------------------------------------------------

  /** Under the lock, caught up. A failure leaves the replica to be reloaded (the files are consistent either way). */
  private compactNow(): void {
    clearTimeout(this.compactTimer);
    try {
      compact(this.replica, this.files, this.logger);
    } catch (error) {
      this.invalid = true;
      throw error;
    }
  }

  /** Catches up, then compacts if there is anything to fold in or set aside. Under the lock. */
  private foldJournal(): void {
    this.catchUpLocked();
    if (compactionUseful(this.replica)) this.compactNow();
  }

  private runCompaction(): void {
    if (this.closed) return; // close() folds the journal itself
    this.exclusive(() => this.foldJournal())
      .then(() => this.emitPending(false))
      .catch((error) => this.logger.warn('could not fold the journal into the memory file (will retry after the next write):', error));
  }

  /** Right after the writes just acknowledged (their answers go out first). */
  private compactSoon(): void {
    if (this.closed || this.compactSoonPending) return;
    this.compactSoonPending = true;
    clearTimeout(this.compactTimer);
    setImmediate(() => {
      this.compactSoonPending = false;
      this.runCompaction();
    });
  }

  private scheduleCompaction(): void {
    if (this.closed) return;
    clearTimeout(this.compactTimer);
    this.compactTimer = setTimeout(() => this.runCompaction(), this.compactDelayMs);
    this.compactTimer.unref();
  }

  // -------------------------------------------------------------------------------------------
  // 6. Watching and closing
  // -------------------------------------------------------------------------------------------

  onChange(listener: (change: GraphChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  watch(): () => void {
    this.watchers++;
    if (!this.pollTimer && !this.closed) {
      this.pollTimer = setInterval(() => {
        // One check at a time: while another process holds the lock, checks would otherwise pile up behind it.
        if (this.polling) return;
        this.polling = true;
        this.sync()
          .catch((error) => this.logger.warn('could not check the memory file for changes:', error))
          .finally(() => {
            this.polling = false;
          });
      }, this.pollMs);
      this.pollTimer.unref();
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.watchers--;
      if (this.watchers === 0 && this.pollTimer) {
        clearInterval(this.pollTimer);
        this.pollTimer = undefined;
      }
    };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.pollTimer) clearInterval(this.pollTimer);
    // Queued writes finish first (waiting for the load if they must); a load nobody waits for stops.
    await this.writes.idle();
    clearTimeout(this.compactTimer);
    if (!this.invalid && !this.loading && (this.replica.journal !== null || this.replica.needsCompaction)) {
      try {
        await this.exclusive(() => this.foldJournal());
      } catch (error) {
        this.logger.warn('could not fold the journal into the memory file on close (it will be on the next start):', error);
      }
    }
    this.lock.dispose();
    this.listeners.clear();
  }

  // -------------------------------------------------------------------------------------------
  // 7. The lock and change events
  // -------------------------------------------------------------------------------------------

  /**
   * Runs `fn` with this process's turn (one at a time) and the cross-process lock held. `fn` is
   * synchronous, so the lock is taken, used and released without this process doing anything else.
   */
  private exclusive<T>(fn: () => T): Promise<T> {
    // Counted from the call, not from its turn: calls queued behind a stuck lock all give up in time.
    const deadline = Date.now() + this.lockTimeoutMs;
    const run = this.chain.then(async () => {
      if (!this.lock.tryAcquire()) await this.waitForLock(deadline);
      try {
        return fn();
      } finally {
        this.lock.release();
      }
    });
    this.chain = run.catch(() => {});
    return run;
  }

  private async waitForLock(deadline: number): Promise<void> {
    const slow = setTimeout(() => this.logger.info(`waiting for ${this.lock.path}, held by ${this.lock.holder()}`), 1000);
    slow.unref();
    try {
      await this.lock.acquire(deadline);
    } catch (error) {
      if (!(error instanceof LockTimeoutError)) throw error;
      this.logger.error(`${error.message}; gave up`);
      throw new ToolError(lockTimeoutText(error, this.lockTimeoutMs));
    } finally {
      clearTimeout(slow);
    }
  }

  private emitPending(localChange: boolean): void {
    const external = this.replica.externalChange;
    this.replica.externalChange = false;
    if (external) for (const l of this.listeners) l({ source: 'external' });
    if (localChange) for (const l of this.listeners) l({ source: 'local' });
  }
}

const mebibytes = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

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
