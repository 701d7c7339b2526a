/**
 * The file store: the graph lives in memory (with indexes), and on disk as
 *
 * - `memory.jsonl`          the snapshot, in the reference's exact format (the reference loads it);
 * - `memory.jsonl.wal`      a journal of the changes since that snapshot (only once the snapshot is
 *                           larger than `smallFileBytes`; small graphs are rewritten whole instead);
 * - `memory.jsonl.lock`     a lock file held around every read-modify-write (see `lock.ts`);
 * - `memory.jsonl.corrupt`  lines that could not be loaded, set aside verbatim (created when needed;
 *                           never written through a symbolic link).
 *
 * When `memory.jsonl` is a symbolic link, all of these live beside its target and every write goes to
 * the target (temp file beside it, renamed over it): the link stays a link, and a process opening the
 * link shares the lock and the journal with one opening the target.
 *
 * A mutation answers only after its bytes are fsynced: a journal append (one `write` + `fdatasync`
 * for every mutation queued meanwhile: group commit), or for small graphs a new snapshot written to a
 * temp file, fsynced and renamed over the old one. A process killed at any point leaves the last
 * committed state: a half-written journal line is ignored and cut off by the next writer, and a
 * snapshot is replaced only by `rename`.
 *
 * Several processes may share the file (every MCP client spawns its own server). Each one checks
 * with two `stat`s before every call whether the snapshot or the journal changed, and replays what
 * another process appended (or reloads after a compaction it cannot follow). Writers take the lock,
 * catch up, apply, append, release: no write is lost.
 *
 * The journal is folded into a new snapshot ("compaction") when it grows past a quarter of the
 * snapshot and past 1 MiB, a few seconds after the last write, and on close, so the snapshot the reference reads is
 * at most that far behind while the server runs, and current after it stops.
 */
import { randomBytes } from 'node:crypto';
import {
  type BigIntStats,
  closeSync,
  constants,
  fdatasyncSync,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  readSync,
  realpathSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { type Logger, silentLogger, ToolError } from '@mcpkit/protocol-core';
import { Graph, type GraphRecord, type Mutation } from '../graph.js';
import { type CorruptLine, entityLine, looksLikeGraphFile, parseGraphFile, relationLine } from './jsonl.js';
import { FileLock, LockTimeoutError } from './lock.js';
import type { GraphChange, GraphStore } from './types.js';

export interface FileStoreOptions {
  /** Absolute path of the memory file (`…/memory.jsonl`). */
  path: string;
  logger?: Logger;
  /** Below this snapshot size, every mutation rewrites the snapshot (no journal). Default 256 KiB. */
  smallFileBytes?: number;
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
   * When another process holds the lock at open: `wait` for it (`openFileStore` resolves with the
   * graph loaded), or `defer`: resolve at once and load on the first call, which waits for the lock
   * (the CLI does this, so that `initialize` never waits for another process). Default `wait`.
   */
  openWhenLocked?: 'wait' | 'defer';
  /** How often to look for other processes' changes while `watch()` handles are held. Default 1000 ms. */
  pollMs?: number;
}

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

interface FileId {
  ino: bigint;
  size: bigint;
  mtimeNs: bigint;
}

type FileIdJson = { ino: string; size: string; mtimeNs: string };

interface JournalHeader {
  mcpkitMemoryJournal: 1;
  /** The snapshot these records apply to (null: no snapshot file). */
  base: FileIdJson | null;
  /** Written by a compaction: the journal it replaced, so processes that had read all of it can follow without reloading. */
  prev: { base: FileIdJson | null; ino: string; size: number } | null;
}

const JOURNAL_VERSION = 1;
const idOf = (s: BigIntStats): FileId => ({ ino: s.ino, size: s.size, mtimeNs: s.mtimeNs });
const idJson = (id: FileId | null): FileIdJson | null =>
  id ? { ino: String(id.ino), size: String(id.size), mtimeNs: String(id.mtimeNs) } : null;
const sameId = (a: FileId | null, b: FileId | null) =>
  a === null || b === null ? a === b : a.ino === b.ino && a.size === b.size && a.mtimeNs === b.mtimeNs;
const sameIdJson = (a: FileIdJson | null | undefined, b: FileId | null) =>
  a === undefined
    ? false
    : a === null
      ? b === null
      : b !== null && a.ino === String(b.ino) && a.size === String(b.size) && a.mtimeNs === String(b.mtimeNs);

function statOrNull(path: string): BigIntStats | null {
  return statSync(path, { bigint: true, throwIfNoEntry: false }) ?? null;
}

function fsyncDir(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch {
    // Not supported everywhere (Windows); the rename itself is still atomic.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * The file `path` names after following symbolic links (a chain of them, relative or absolute,
 * dangling too); `path` itself when it is not a link.
 */
function followLinks(path: string): string {
  let current = path;
  for (let hops = 0; hops < 40; hops++) {
    const st = lstatSync(current, { throwIfNoEntry: false });
    if (!st?.isSymbolicLink()) return current;
    // Relative to the folder the link really is in (`..` in a link inside a linked folder).
    current = resolve(realpathSync(dirname(current)), readlinkSync(current));
  }
  throw Object.assign(new Error(`too many levels of symbolic links: ${path}`), { code: 'ELOOP' });
}

/** Flags for appending to `.corrupt`: never through a symbolic link, never blocking on a FIFO (0 where the platform lacks them). */
const APPEND_NO_FOLLOW =
  constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

function writeWholeFile(path: string, data: string, mode: number): BigIntStats {
  const fd = openSync(path, 'wx', mode);
  try {
    writeSync(fd, data);
    fsyncSync(fd);
    return fstatSync(fd, { bigint: true });
  } finally {
    closeSync(fd);
  }
}

function appendDurably(path: string, data: string): void {
  const fd = openSync(path, 'a');
  try {
    writeSync(fd, data);
    fdatasyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

interface Job {
  run: (graph: Graph) => Mutation<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

const CAUGHT_UP = true;
const NEEDS_LOCK = false;

class FileStore implements GraphStore {
  readonly location: string;
  /** The path as given (a symbolic link to `location`, or `location` itself). */
  private readonly configuredPath: string;
  private readonly walPath: string;
  private readonly corruptPath: string;
  private readonly dir: string;
  private readonly logger: Logger;
  private readonly smallFileBytes: number;
  private readonly compactDelayMs: number;
  private readonly lock: FileLock;
  private readonly lockTimeoutMs: number;
  private readonly openWhenLocked: 'wait' | 'defer';
  private readonly pollMs: number;

  private graph = new Graph();
  /** Identity of the snapshot `graph` was built from (null: no snapshot file). */
  private base: FileId | null = null;
  private snapshotBytes = 0;
  /** Inode of the journal we have read (null: none), how far (complete lines), and where its records start. */
  private walIno: bigint | null = null;
  private walOffset = 0;
  private walHeaderBytes = 0;
  /** Lines of other record types found in the snapshot; written back verbatim at the top. */
  private foreignRecords: string[] = [];
  /** Lines that could not be loaded, waiting to be set aside before the snapshot is rewritten. */
  private pendingCorrupt: CorruptLine[] = [];
  private needsCompaction = false;
  /** State may be off (a failed write or an exception mid-change): reload everything before the next use. */
  private invalid = true;
  private externalChange = false;
  private loaded = false;

  private readonly queue: Job[] = [];
  private draining: Promise<void> | null = null;
  private chain: Promise<unknown> = Promise.resolve();
  private compactTimer: NodeJS.Timeout | undefined;
  private pollTimer: NodeJS.Timeout | undefined;
  private watchers = 0;
  private polling = false;
  private readonly listeners = new Set<(change: GraphChange) => void>();
  private closed = false;

  constructor(options: FileStoreOptions) {
    this.configuredPath = options.path;
    // Everything lives beside the link's target, so that opening the link or the target shares one lock and one journal.
    this.location = followLinks(options.path);
    this.walPath = `${this.location}.wal`;
    this.corruptPath = `${this.location}.corrupt`;
    this.dir = dirname(this.location);
    this.logger = options.logger ?? silentLogger;
    this.smallFileBytes = options.smallFileBytes ?? 256 * 1024;
    this.compactDelayMs = options.compactDelayMs ?? 2000;
    this.lockTimeoutMs = options.lockTimeoutMs ?? 30_000;
    this.lock = new FileLock(`${this.location}.lock`, { staleMs: options.lockStaleMs ?? 10_000, timeoutMs: this.lockTimeoutMs });
    this.openWhenLocked = options.openWhenLocked ?? 'wait';
    this.pollMs = options.pollMs ?? 1000;
  }

  // -------------------------------------------------------------------------------------------
  // Public API
  // -------------------------------------------------------------------------------------------

  async open(): Promise<void> {
    if (this.location !== this.configuredPath) {
      this.logger.info(`${this.configuredPath} is a symbolic link; reading and writing its target ${this.location}`);
    }
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const load = () => {
      this.catchUp(true);
      if (this.needsCompaction) this.compact();
    };
    if (this.openWhenLocked === 'wait') {
      await this.exclusive(load);
    } else if (this.lock.tryAcquire()) {
      try {
        load();
      } finally {
        this.lock.release();
      }
    } else {
      // Still `invalid`: the first call loads the graph, waiting for the lock up to `lockTimeoutMs`.
      this.logger.info(`${this.lock.path} is held by ${this.lock.holder()}; the graph will be loaded on the first call`);
    }
    this.externalChange = false;
  }

  createEntities: GraphStore['createEntities'] = (entities) => this.mutate((g) => g.createEntities(entities));
  createRelations: GraphStore['createRelations'] = (relations) => this.mutate((g) => g.createRelations(relations));
  addObservations: GraphStore['addObservations'] = (additions) => this.mutate((g) => g.addObservations(additions));
  deleteEntities: GraphStore['deleteEntities'] = (names) => this.mutate((g) => g.deleteEntities(names));
  deleteObservations: GraphStore['deleteObservations'] = (deletions) => this.mutate((g) => g.deleteObservations(deletions));
  deleteRelations: GraphStore['deleteRelations'] = (relations) => this.mutate((g) => g.deleteRelations(relations));

  readGraph: GraphStore['readGraph'] = async (page) => {
    await this.sync();
    return this.graph.read(page);
  };

  searchNodes: GraphStore['searchNodes'] = async (query, page) => {
    await this.sync();
    return this.graph.search(query, page);
  };

  openNodes: GraphStore['openNodes'] = async (names, page) => {
    await this.sync();
    return this.graph.open(names, page);
  };

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
    await this.draining;
    clearTimeout(this.compactTimer);
    if (this.walIno !== null || this.needsCompaction) {
      try {
        await this.exclusive(() => this.foldJournal());
      } catch (error) {
        this.logger.warn('could not fold the journal into the memory file on close (it will be on the next start):', error);
      }
    }
    this.listeners.clear();
  }

  // -------------------------------------------------------------------------------------------
  // Mutations: queued, applied in order under the lock, committed together (group commit)
  // -------------------------------------------------------------------------------------------

  private mutate<T>(run: (graph: Graph) => Mutation<T>): Promise<T> {
    if (this.closed) return Promise.reject(new Error('the memory store is closed'));
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ run, resolve: resolve as (value: unknown) => void, reject });
      this.draining ??= new Promise<void>((done) => setImmediate(done)).then(() => this.drain());
    });
  }

  private async drain(): Promise<void> {
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0);
        let outcomes: ({ ok: true; value: unknown } | { ok: false; error: unknown })[] = [];
        let changed = false;
        try {
          await this.exclusive(() => {
            this.catchUp(true);
            const records: GraphRecord[] = [];
            outcomes = batch.map((job) => {
              try {
                const m = job.run(this.graph);
                records.push(...m.records);
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
          for (const job of batch) job.reject(failure);
          this.emitPending(false);
          continue;
        }
        batch.forEach((job, i) => {
          const o = outcomes[i]!;
          if (o.ok) job.resolve(o.value);
          else job.reject(o.error);
        });
        this.emitPending(changed);
      }
    } finally {
      this.draining = null;
    }
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

  /** Makes `records` durable. Called under the lock with the graph already changed. */
  private persist(records: GraphRecord[]): void {
    // A journal always sits next to a snapshot file, so the file exists (and the reference can read it) from the first write.
    if (this.needsCompaction || this.base === null || (this.walIno === null && this.snapshotBytes < this.smallFileBytes)) {
      this.compact();
      return;
    }
    if (this.walIno === null) this.startJournal({ base: idJson(this.base), prev: null });
    const data = records.map((r) => `${JSON.stringify(r)}\n`).join('');
    appendDurably(this.walPath, data);
    this.walOffset += Buffer.byteLength(data);
    if (this.walOffset - this.walHeaderBytes > Math.max(1024 * 1024, this.snapshotBytes / 4)) this.compact();
    else this.scheduleCompaction();
  }

  private startJournal(header: Omit<JournalHeader, 'mcpkitMemoryJournal'>): void {
    const line = `${JSON.stringify({ mcpkitMemoryJournal: JOURNAL_VERSION, ...header })}\n`;
    const tmp = this.tempPath();
    const st = writeWholeFile(tmp, line, 0o600);
    renameSync(tmp, this.walPath);
    fsyncDir(this.dir);
    this.walIno = st.ino;
    this.walOffset = Buffer.byteLength(line);
    this.walHeaderBytes = this.walOffset;
  }

  /** Writes the whole graph as a new snapshot (reference format) and starts an empty journal if needed. Under the lock. */
  private compact(): void {
    const lines = [...this.foreignRecords];
    for (const e of this.graph.entityList()) lines.push(entityLine(e));
    for (const r of this.graph.relationList()) lines.push(relationLine(r));
    const text = lines.join('\n');
    this.setAsideCorrupt();
    this.removeStaleTemps();
    const existing = statOrNull(this.location);
    const mode = existing ? Number(existing.mode & 0o777n) : 0o600;
    const tmp = this.tempPath();
    let st: BigIntStats;
    try {
      st = writeWholeFile(tmp, text, mode);
    } catch (error) {
      try {
        unlinkSync(tmp);
      } catch {}
      throw error;
    }
    const newBase = idOf(st);
    const prev = this.walIno !== null ? { base: idJson(this.base), ino: String(this.walIno), size: this.walOffset } : null;
    // Tell a reader that finds this journal next to the new snapshot (a crash before the journal is
    // replaced) that its records are already in it.
    if (this.walIno !== null) appendDurably(this.walPath, `${JSON.stringify({ compactedTo: idJson(newBase) })}\n`);
    renameSync(tmp, this.location);
    this.base = newBase;
    this.snapshotBytes = Number(st.size);
    if (prev && this.snapshotBytes >= this.smallFileBytes) {
      this.startJournal({ base: idJson(newBase), prev });
    } else {
      if (this.walIno !== null) unlinkSync(this.walPath);
      this.walIno = null;
      this.walOffset = 0;
      this.walHeaderBytes = 0;
      fsyncDir(this.dir);
    }
    this.needsCompaction = false;
    clearTimeout(this.compactTimer);
  }

  /** Catches up, then compacts if the journal holds records or something is waiting to be set aside. Under the lock. */
  private foldJournal(): void {
    this.catchUp(true);
    if (this.needsCompaction || (this.walIno !== null && this.walOffset > this.walHeaderBytes)) this.compact();
  }

  private scheduleCompaction(): void {
    if (this.closed) return;
    clearTimeout(this.compactTimer);
    this.compactTimer = setTimeout(() => {
      this.exclusive(() => this.foldJournal())
        .then(() => this.emitPending(false))
        .catch((error) => this.logger.warn('could not fold the journal into the memory file (will retry on the next write):', error));
    }, this.compactDelayMs);
    this.compactTimer.unref();
  }

  private setAsideCorrupt(): void {
    if (this.pendingCorrupt.length === 0) return;
    const data = this.pendingCorrupt.map((c) => `${c.text}\n`).join('');
    const fd = this.openCorrupt();
    try {
      writeSync(fd, data);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    this.logger.warn(
      `moved ${this.pendingCorrupt.length} unreadable line(s) of ${this.location} verbatim to ${this.corruptPath} (lines ${this.pendingCorrupt.map((c) => c.line).join(', ')})`,
    );
    this.pendingCorrupt = [];
  }

  /**
   * Opens `.corrupt` for appending without following a symbolic link (`O_NOFOLLOW`): a link found
   * there is moved aside (kept, never written through) and a regular file is created in its place.
   * Anything else that is not a regular file (a folder, a FIFO) is refused: the write fails, nothing is lost.
   */
  private openCorrupt(): number {
    const notAFile = () => new Error(`${this.corruptPath} is not a regular file; refusing to set unreadable lines aside into it`);
    for (let attempt = 0; ; attempt++) {
      const st = lstatSync(this.corruptPath, { throwIfNoEntry: false });
      if (st && !st.isFile() && !st.isSymbolicLink()) throw notAFile();
      if (st?.isSymbolicLink()) {
        const aside = `${this.corruptPath}.${randomBytes(8).toString('hex')}.symlink`;
        const target = readlinkSync(this.corruptPath);
        renameSync(this.corruptPath, aside);
        this.logger.warn(`${this.corruptPath} was a symbolic link (to ${target}); not writing through it: moved it to ${aside}`);
      }
      let fd: number;
      try {
        fd = openSync(this.corruptPath, APPEND_NO_FOLLOW, 0o600);
      } catch (error) {
        // A link created between our check and the open (ELOOP, or EMLINK on FreeBSD): move it aside too.
        if (attempt < 2 && lstatSync(this.corruptPath, { throwIfNoEntry: false })?.isSymbolicLink()) continue;
        throw error;
      }
      if (fstatSync(fd).isFile()) return fd;
      closeSync(fd);
      throw notAFile();
    }
  }

  private tempPath(): string {
    return join(this.dir, `${basename(this.location)}.${randomBytes(8).toString('hex')}.tmp`);
  }

  /** Temp files of ours left by a killed process (we hold the lock, so none is being written now). */
  private removeStaleTemps(): void {
    const prefix = `${basename(this.location)}.`;
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch {
      return;
    }
    for (const name of names) {
      if (!name.startsWith(prefix) || !/\.[0-9a-f]{16}\.tmp$/.test(name)) continue;
      try {
        unlinkSync(join(this.dir, name));
      } catch {}
    }
  }

  // -------------------------------------------------------------------------------------------
  // Catching up with the files
  // -------------------------------------------------------------------------------------------

  /** Brings the graph up to date with the files before a read. Takes the lock only when a reload is needed. */
  private async sync(): Promise<void> {
    if (this.closed) throw new Error('the memory store is closed');
    try {
      if (this.catchUp(false) === NEEDS_LOCK) await this.exclusive(() => this.catchUp(true));
    } catch (error) {
      this.invalid = true;
      if (error instanceof ForeignFileError) throw this.foreignError(error);
      throw error;
    }
    this.emitPending(false);
  }

  /**
   * Compares the files with what we have read and replays what changed. Without the lock it only
   * follows appends and compactions it can prove it has fully seen; anything else needs the lock.
   */
  private catchUp(locked: boolean): boolean {
    if (this.invalid) return locked ? this.reload() : NEEDS_LOCK;
    const p = statOrNull(this.location);
    const w = statOrNull(this.walPath);
    const pId = p ? idOf(p) : null;
    if (sameId(pId, this.base)) {
      if (!w) {
        if (this.walIno === null) return CAUGHT_UP;
      } else if (this.walIno !== null && w.ino === this.walIno) {
        if (Number(w.size) === this.walOffset) return CAUGHT_UP;
        if (Number(w.size) > this.walOffset) {
          this.readJournalTail(locked);
          return CAUGHT_UP;
        }
      } else if (this.walIno === null) {
        // Another process started a journal on the snapshot we have.
        if (this.followJournal(pId, (h) => h.prev === null && sameIdJson(h.base, this.base))) return CAUGHT_UP;
      }
    } else if (w && this.walIno !== null && w.ino !== this.walIno) {
      // Another process compacted; if we had read all of the journal it replaced, we have this snapshot already.
      const [walIno, walOffset, base] = [this.walIno, this.walOffset, this.base];
      if (
        this.followJournal(
          pId,
          (h) =>
            sameIdJson(h.base, pId) &&
            h.prev !== null &&
            h.prev.ino === String(walIno) &&
            h.prev.size === walOffset &&
            sameIdJson(h.prev.base, base),
        )
      ) {
        this.base = pId;
        this.snapshotBytes = Number(p!.size);
        return CAUGHT_UP;
      }
    }
    return locked ? this.reload() : NEEDS_LOCK;
  }

  /** Reads a journal that starts where our state is (checked by `accept` on its header) and applies its records. */
  private followJournal(pId: FileId | null, accept: (h: JournalHeader) => boolean): boolean {
    let fd: number;
    try {
      fd = openSync(this.walPath, 'r');
    } catch {
      return false;
    }
    try {
      const st = fstatSync(fd, { bigint: true });
      const buf = Buffer.allocUnsafe(Number(st.size));
      const n = readSync(fd, buf, 0, buf.length, 0);
      const text = buf.subarray(0, n).toString('utf8');
      const nl = text.indexOf('\n');
      if (nl < 0) return false;
      let header: JournalHeader;
      try {
        header = JSON.parse(text.slice(0, nl)) as JournalHeader;
      } catch {
        return false;
      }
      if (header.mcpkitMemoryJournal !== JOURNAL_VERSION || !accept(header)) return false;
      // The snapshot must still be the one the header names (a compaction may have run since our stat).
      const again = statOrNull(this.location);
      if (!sameIdJson(header.base, again ? idOf(again) : null) || !sameIdJson(header.base, pId)) return false;
      this.walIno = st.ino;
      this.walHeaderBytes = Buffer.byteLength(text.slice(0, nl + 1));
      this.walOffset = this.walHeaderBytes;
      this.applyJournalText(text.slice(nl + 1), 'external');
      return true;
    } finally {
      closeSync(fd);
    }
  }

  /** Applies complete lines appended to the journal since `walOffset`; cuts a torn last line when we hold the lock. */
  private readJournalTail(locked: boolean): void {
    const fd = openSync(this.walPath, locked ? 'r+' : 'r');
    try {
      const st = fstatSync(fd, { bigint: true });
      if (st.ino !== this.walIno) {
        this.invalid = true;
        return;
      }
      const size = Number(st.size);
      const buf = Buffer.allocUnsafe(size - this.walOffset);
      const n = readSync(fd, buf, 0, buf.length, this.walOffset);
      const last = buf.subarray(0, n).lastIndexOf(10);
      if (last >= 0) this.applyJournalText(buf.subarray(0, last + 1).toString('utf8'), 'external');
      if (locked && size > this.walOffset) {
        // We hold the lock, so nobody is writing: the rest is a record a killed writer never finished (never acknowledged).
        this.logger.warn(`dropped an incomplete journal record (${size - this.walOffset} bytes) left by an interrupted write`);
        ftruncateSync(fd, this.walOffset);
        fdatasyncSync(fd);
      }
    } finally {
      closeSync(fd);
    }
  }

  /** Applies journal lines (each ends with \n) and advances `walOffset`. */
  private applyJournalText(text: string, source: 'external' | 'load', lenient = false): void {
    let start = 0;
    for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', start)) {
      const line = text.slice(start, nl);
      this.walOffset += Buffer.byteLength(line) + 1;
      start = nl + 1;
      if (line.trim() === '') continue;
      let record: GraphRecord | { compactedTo: unknown };
      try {
        record = JSON.parse(line);
      } catch (error) {
        this.logger.warn(`journal ${this.walPath} has an unreadable line; it is kept in ${this.corruptPath}:`, error);
        this.pendingCorrupt.push({ line: 0, text: line, reason: 'unreadable journal line' });
        this.needsCompaction = true;
        continue;
      }
      if ('compactedTo' in record) continue;
      try {
        if (this.graph.apply(record, lenient) && source === 'external') this.externalChange = true;
      } catch (error) {
        this.logger.warn(`journal record could not be applied; it is kept in ${this.corruptPath}:`, error);
        this.pendingCorrupt.push({ line: 0, text: line, reason: 'journal record could not be applied' });
        this.needsCompaction = true;
      }
    }
  }

  /** Rebuilds everything from the snapshot and the journal. Under the lock. */
  private reload(): boolean {
    const first = !this.loaded;
    this.loaded = true;
    let text = '';
    let pId: FileId | null = null;
    let fd: number | undefined;
    try {
      fd = openSync(this.location, 'r');
      const st = fstatSync(fd, { bigint: true });
      if (st.isDirectory()) throw new ForeignFileError(this.location, 'it is a directory');
      pId = idOf(st);
      text = readFileSync(fd, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
    const graph = new Graph();
    const parsed = parseGraphFile(text, { entity: (e) => graph.loadEntity(e), relation: (r) => graph.loadRelation(r) });
    text = '';
    if (!looksLikeGraphFile(parsed)) {
      const firstLine = parsed.corrupt[0];
      throw new ForeignFileError(
        this.location,
        firstLine ? `line ${firstLine.line}: ${firstLine.reason}` : 'no entity or relation records',
      );
    }
    this.graph = graph;
    this.base = pId;
    this.snapshotBytes = Number(pId?.size ?? 0);
    this.foreignRecords = parsed.foreignRecords;
    this.pendingCorrupt = parsed.corrupt;
    this.needsCompaction = parsed.corrupt.length > 0;
    for (const c of parsed.corrupt) {
      this.logger.warn(
        `${this.location} line ${c.line} is not a valid record (${c.reason}); it will be kept verbatim in ${this.corruptPath}: ${c.text.slice(0, 120)}`,
      );
    }
    this.walIno = null;
    this.walOffset = 0;
    this.walHeaderBytes = 0;
    this.loadJournal(pId);
    this.invalid = false;
    if (this.needsCompaction) this.scheduleCompaction();
    if (!first) this.externalChange = true;
    return CAUGHT_UP;
  }

  private loadJournal(pId: FileId | null): void {
    let fd: number;
    try {
      fd = openSync(this.walPath, 'r+');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw error;
    }
    try {
      const st = fstatSync(fd, { bigint: true });
      const buf = readFileSync(fd);
      const text = buf.toString('utf8');
      const nl = text.indexOf('\n');
      let header: JournalHeader | undefined;
      try {
        header = nl >= 0 ? (JSON.parse(text.slice(0, nl)) as JournalHeader) : undefined;
      } catch {}
      if (!header || header.mcpkitMemoryJournal !== JOURNAL_VERSION) {
        this.logger.warn(`${this.walPath} is not a journal this version can read; it is kept in ${this.corruptPath}`);
        for (const line of text.split('\n')) if (line.trim()) this.pendingCorrupt.push({ line: 0, text: line, reason: 'unknown journal' });
        this.needsCompaction = true;
        this.walIno = st.ino;
        this.walOffset = buf.length;
        this.walHeaderBytes = buf.length;
        return;
      }
      const complete = text.lastIndexOf('\n') + 1;
      this.walIno = st.ino;
      this.walHeaderBytes = Buffer.byteLength(text.slice(0, nl + 1));
      this.walOffset = this.walHeaderBytes;
      const body = text.slice(nl + 1, complete);
      if (sameIdJson(header.base, pId)) {
        this.applyJournalText(body, 'load');
      } else if (body.includes('"compactedTo"') && this.compactedTo(body, pId)) {
        // A compaction wrote this snapshot and was stopped before it replaced the journal: its records are in the snapshot.
        this.walOffset = this.walHeaderBytes + Buffer.byteLength(body);
        this.needsCompaction = true;
      } else {
        this.logger.warn(
          `${this.location} was changed by another program while ${this.walPath} held changes not yet in it; replaying them onto the new file`,
        );
        this.applyJournalText(body, 'load', true);
        this.needsCompaction = true;
      }
      if (buf.length > complete) {
        this.logger.warn(`dropped an incomplete journal record (${buf.length - complete} bytes) left by an interrupted write`);
        ftruncateSync(fd, complete);
        fdatasyncSync(fd);
      }
    } finally {
      closeSync(fd);
    }
  }

  private compactedTo(body: string, pId: FileId | null): boolean {
    for (const line of body.split('\n')) {
      if (!line.startsWith('{"compactedTo"')) continue;
      try {
        if (sameIdJson((JSON.parse(line) as { compactedTo: FileIdJson }).compactedTo, pId)) return true;
      } catch {}
    }
    return false;
  }

  // -------------------------------------------------------------------------------------------
  // Locking and events
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
      throw new ToolError(
        `The memory file is locked by another mcp-server-memory (${error.holder}) that did not release it within ${Number((this.lockTimeoutMs / 1000).toFixed(1))} s; nothing was read or changed. Try again later, or stop that process if it is stuck.`,
      );
    } finally {
      clearTimeout(slow);
    }
  }

  private emitPending(localChange: boolean): void {
    const external = this.externalChange;
    this.externalChange = false;
    if (external) for (const l of this.listeners) l({ source: 'external' });
    if (localChange) for (const l of this.listeners) l({ source: 'local' });
  }
}

/**
 * Opens (or creates on first write) the memory file at `options.path`: creates its folder, loads the
 * snapshot and journal under the lock, sets aside unreadable lines, and throws `ForeignFileError`
 * when the file is not a memory graph.
 */
export async function openFileStore(options: FileStoreOptions): Promise<GraphStore> {
  const store = new FileStore(options);
  await store.open();
  return store;
}
