/**
 * When the graph in memory can be used, and loading it when it cannot: at open (awaited, or in the
 * background while the server already answers), and again whenever a failure may have left it off.
 * The snapshot is read in chunks without the lock, reporting progress (`progress.ts`); its journal
 * is read under the lock (`GraphFile.load`). After a background load the search index is built in
 * the next idle moment.
 */
import type { Logger } from '@mcpkit/protocol-core';
import type { Exclusive } from './exclusive.js';
import type { GraphFile } from './graphFile.js';
import { isRecordLine } from './jsonl.js';
import { LoadTracker } from './progress.js';
import { firstLine } from './snapshot.js';
import { closedError } from './storeErrors.js';
import type { ReadyOptions } from './types.js';

/**
 * `stale` until the graph is loaded (at first, and again whenever a failure may have left it off),
 * `loading` while a load runs (calls wait for `done`), `current` once loaded.
 */
export type LoadState = { kind: 'stale' } | { kind: 'loading'; done: Promise<void> } | { kind: 'current' };

export interface GraphLoaderHooks {
  logger: Logger;
  /** The store is closed (a load goes on only while writes wait for it). */
  closed: () => boolean;
  /** Writes are queued or being committed (the search index waits for a quiet moment). */
  busy: () => boolean;
  /** Under the lock, right after a load: sets aside unreadable lines (a compaction) when there are any. */
  loaded: () => void;
}

/** After a background load, the search index is built this long after the load (if nothing is being written then). */
const INDEX_IDLE_MS = 200;

export class GraphLoader {
  private state: LoadState = { kind: 'stale' };
  private readonly tracker = new LoadTracker();

  constructor(
    private readonly file: GraphFile,
    private readonly exclusive: Exclusive,
    private readonly hooks: GraphLoaderHooks,
  ) {}

  get current(): boolean {
    return this.state.kind === 'current';
  }

  /** The graph was just rebuilt from the files (under the lock). */
  reloaded(): void {
    this.state = { kind: 'current' };
  }

  /** The graph may be off (a failed write, an exception mid-change): it is loaded again before its next use. */
  invalidate(): void {
    if (this.state.kind === 'current') this.state = { kind: 'stale' };
  }

  /**
   * `background`: resolves once the file is known to be a memory graph (its first line is a record;
   * otherwise it reads on to find out) and loads the rest meanwhile. `wait`: resolves with the graph
   * loaded, or (`defer`, when another process holds the lock) with the snapshot read and its journal
   * left for the first call. Throws `ForeignFileError`.
   */
  async open(mode: 'wait' | 'background', whenLocked: 'wait' | 'defer'): Promise<void> {
    if (mode === 'background') {
      const line = firstLine(this.file.files.file);
      if (line === undefined || !isRecordLine(line)) await this.readSnapshot(); // throws ForeignFileError at once
      // A failure reaches the calls that wait for it.
      void this.ensure()?.then(
        () => this.indexWhenIdle(),
        () => {},
      );
      return;
    }
    await this.readSnapshot();
    if (whenLocked === 'wait') await this.exclusive.run(() => this.finish());
    else if (!this.exclusive.runIfFree(() => this.finish())) {
      // Still `stale`: the first call reads the journal, waiting for the lock up to the time-out.
      this.hooks.logger.info(`${this.exclusive.path} is held by ${this.exclusive.holder()}; the graph will be loaded on the first call`);
    }
  }

  /** Starts loading the graph when it needs it; the promise settles when it is loaded (undefined: it is). */
  ensure(): Promise<void> | undefined {
    if (this.state.kind === 'current') return undefined;
    if (this.state.kind === 'loading') return this.state.done;
    const done = this.load().finally(() => {
      if (this.state.kind === 'loading' && this.state.done === done) this.state = { kind: 'stale' };
    });
    this.state = { kind: 'loading', done };
    return done;
  }

  /** Waits for the load, telling `options.onProgress` how far it is; `failed` maps a failure to what the caller sees. */
  ready(options: ReadyOptions | undefined, failed: (error: unknown) => unknown): Promise<void> {
    const loading = this.ensure();
    if (!loading) return Promise.resolve();
    const mapped = loading.catch((error: unknown) => {
      throw failed(error);
    });
    return this.tracker.wait(mapped, options);
  }

  private async load(): Promise<void> {
    const started = performance.now();
    await this.readSnapshot();
    const holder = this.exclusive.holder();
    if (holder !== 'nobody')
      this.hooks.logger.info(`${this.exclusive.path} is held by ${holder}; calls wait for it until the graph is loaded`);
    await this.exclusive.run(() => this.finish());
    const mib = (this.file.snapshotBytes / 1024 / 1024).toFixed(1);
    this.hooks.logger.info(`loaded ${this.file.files.file} (${mib} MiB) in ${Math.round(performance.now() - started)} ms`);
  }

  /** Reads the snapshot without the lock (unless it is read already); stops early when the load is abandoned. */
  private async readSnapshot(): Promise<void> {
    if (this.file.hasPreloaded) return;
    this.tracker.reset();
    const read = await this.file.readSnapshot(
      (loaded, total) => this.tracker.report(loaded, total),
      () => this.abandoned(),
    );
    if (!read) throw closedError();
  }

  /** Under the lock: the journal, then what `hooks.loaded` does. */
  private finish(): void {
    if (this.abandoned()) throw closedError();
    if (this.state.kind === 'current') {
      this.file.dropPreloaded(); // a call reloaded meanwhile
      return;
    }
    this.file.load();
    this.state = { kind: 'current' };
    this.hooks.loaded();
  }

  /** The store is closed and no write waits for the graph: a load stops. */
  private abandoned(): boolean {
    return this.hooks.closed() && !this.hooks.busy();
  }

  /**
   * Builds the search index once the process is idle after a background load, so that the first
   * `search_nodes` answers from it (at 100k entities 0.3-0.5 s of CPU, spent while the client is still
   * thinking). Waits while writes are queued; gives up when the store closes or the graph is reloaded.
   */
  private indexWhenIdle(tries = 3): void {
    const graph = this.file.graph;
    const timer = setTimeout(() => {
      if (this.hooks.closed() || this.state.kind !== 'current' || this.file.graph !== graph) return;
      if (this.hooks.busy()) {
        if (tries > 1) this.indexWhenIdle(tries - 1);
        return;
      }
      const started = performance.now();
      graph.prepareSearch();
      this.hooks.logger.debug(`built the search index in ${Math.round(performance.now() - started)} ms`);
    }, INDEX_IDLE_MS);
    timer.unref();
  }
}
