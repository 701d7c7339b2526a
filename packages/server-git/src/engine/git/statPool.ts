/**
 * lstat on several threads for a status of a large work tree, as git does (`core.preloadIndex`: its
 * lstats spread over up to 20 threads). A status of 5,000 tracked files is one lstat per file, and on this
 * kind of machine that is ~4 µs of kernel time each, on one thread: most of the call. Helper threads
 * and the calling thread share the list in chunks: the helpers take them from the front, the caller from
 * the back, each chunk claimed in shared memory (`Atomics.compareExchange`), so whichever thread the
 * machine runs more does more and none waits for a fixed share another has not reached. The caller then
 * waits, on a shared counter, for the chunks the helpers claimed (answers written into shared memory, no
 * message back), so the call stays synchronous, as the single-threaded loop it replaces. The answers are
 * numbers in a Float64Array (`lstatValues`), never one object per path: a status of 50,000 files holding
 * 50,000 answers made them survive into V8's old generation, and collecting them cost more than the lstats.
 * Each helper keeps the last list it was sent, so a status of an unchanged index sends its paths once.
 *
 * The helpers (1 per pool by default, worker threads of about 7 MiB RSS each) start on the first batch large
 * enough to gain from them; until they are up, and whenever they are not (one CPU, a failed start, helpers that
 * took too long once), every lstat is done on the calling thread, so the answers never depend on them. They are
 * `unref`ed: they never keep the process alive. A helper only lstats the absolute paths it is given,
 * which the caller has checked (nothing beyond a symbolic link: workTree.ts), and reads nothing.
 */
import { lstatSync, type Stats } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { sep } from 'node:path';
import { performance } from 'node:perf_hooks';

/** node:worker_threads is loaded when the first helper starts, not with the CLI's start-up chunk (the repository cache imports this file). */
const loadBuiltin = createRequire(import.meta.url);
type Worker = import('node:worker_threads').Worker;

/** What a status needs of a file's lstat; node's `Stats` has it too. */
export interface StatLike {
  mode: number;
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
}

export interface StatPool {
  /**
   * lstat of each path (`/`-separated, relative to `dir`) as numbers: FIELDS (5) per path, mode, size,
   * mtimeMs, ctimeMs, ino (`statAt` reads one back); mode is MISSING (-1) for a missing path (ENOENT,
   * ENOTDIR). Another error throws, as `lstatSync` does. Large lists are shared with the helper thread
   * when it is up. Passing the same array again (the same index) spares sending it to the helper.
   */
  lstatValues(dir: string, rels: readonly string[]): Float64Array;
  /**
   * lstat of each path (`/`-separated, relative to `dir`), null for one that is missing (ENOENT,
   * ENOTDIR). Another error throws, as `lstatSync` does. Large lists are shared with the helper thread
   * when it is up.
   */
  lstatAll(dir: string, rels: readonly string[]): (StatLike | null)[];
  /** How many lstats the helper thread has answered so far (0 until it is up, and on one CPU). */
  helperLstats(): number;
  /** The helper thread: not started (or stopped when idle), starting, up, or off for good (one CPU, closed, failed). */
  helperState(): 'idle' | 'starting' | 'up' | 'off';
  /** Stops the helper thread (the pool still answers, on the calling thread). */
  close(): Promise<void>;
}

export interface StatPoolOptions {
  /** Lists shorter than this are done on the calling thread only (default 1,000: below, the hand-off costs more than it saves). */
  minBatch?: number;
  /** Use helper threads at all (default: when the machine has more than one CPU). */
  threads?: boolean;
  /**
   * How many helper threads (default 1). git's preload-index uses one thread per 500 entries, up to 20,
   * whatever the number of CPUs; here 3 helpers measured no faster than 1 on the 2-core bench machine (under
   * load, 50,000 files), so one it is. Each is about 7 MiB, plus its copy of the last list (~4 MiB at 50,000 paths).
   */
  helpers?: number;
  /** How long the caller waits for the helpers' part before it gives the helper up (default 10 s). */
  waitMs?: number;
  /**
   * The helper stops after this long without a list (default 60 s) and starts again on the next large one, so
   * a server that is no longer used (a finished HTTP session's, in a host that creates one per session) holds
   * no thread.
   */
  idleMs?: number;
}

/** Numbers per path in the answers: mode, size, mtimeMs, ctimeMs, ino. mode -1: missing; -2: another error (the helper's). */
export const FIELDS = 5;
export const MISSING = -1;
const FAILED = -2;
/** The helper warms up on at most this many of the paths that started it. */
const WARM_PATHS_MAX = 2000;
/** Paths per chunk: about 64 chunks a list, at most 256 paths each (~1 ms of lstats), so the last one claimed ends the wait soon. */
const chunkSize = (n: number) => Math.max(1, Math.min(256, Math.ceil(n / 64)));
/** A chunk's state in the shared control words: unclaimed, the helper's (under way), this thread's, the helper's (done). */
const FREE = 0;
const HELPER_BUSY = 1;
const MINE = 2;
const HELPER_DONE = 3;

/**
 * The helper's code, plain JavaScript run with `eval` so it needs no file of its own next to the bundle.
 * It is started with a list of paths, which it lstats (twice, answers dropped) before it says it is ready,
 * so the first list it is handed does not run cold. Each message: the list (or null: the one it kept), the
 * folder and a shared buffer of FIELDS numbers per path followed by the control words: one per chunk, then
 * the count of chunks done. It claims chunks from the front while they are free, writes their answers,
 * marks each done and wakes the caller.
 */
const HELPER = `
const { parentPort, workerData } = require('node:worker_threads');
const { lstatSync } = require('node:fs');
// Its first lstats, on the list that started it, make V8 compile this loop before a caller waits on it.
for (let round = 0; round < 2; round++) for (const rel of workerData.rels) try { lstatSync(workerData.dir + rel); } catch {}
parentPort.postMessage('ready');
let kept = [];
parentPort.on('message', ({ dir, rels, buffer, chunk }) => {
  if (rels) kept = rels;
  const n = kept.length;
  const chunks = Math.ceil(n / chunk);
  const out = new Float64Array(buffer, 0, n * ${FIELDS});
  const control = new Int32Array(buffer, n * ${FIELDS} * 8, chunks + 1);
  for (let c = 0; c < chunks; c++) {
    const was = Atomics.compareExchange(control, c, ${FREE}, ${HELPER_BUSY});
    if (was === ${MINE}) break; // the caller has it, and all after it
    if (was !== ${FREE}) continue; // another helper's
    const end = Math.min(n, (c + 1) * chunk);
    for (let i = c * chunk; i < end; i++) {
      const o = i * ${FIELDS};
      try {
        const st = lstatSync(dir + kept[i]);
        out[o] = st.mode; out[o + 1] = st.size; out[o + 2] = st.mtimeMs; out[o + 3] = st.ctimeMs; out[o + 4] = st.ino;
      } catch (error) {
        out[o] = error && (error.code === 'ENOENT' || error.code === 'ENOTDIR') ? ${MISSING} : ${FAILED};
      }
    }
    Atomics.store(control, c, ${HELPER_DONE});
    Atomics.add(control, chunks, 1);
    Atomics.notify(control, chunks);
  }
});
`;

/** lstat of `path`, or null when it is missing (ENOENT, or ENOTDIR: a file on its way); another error throws. */
export function lstatOrNull(path: string): Stats | null {
  try {
    return lstatSync(path, { throwIfNoEntry: false }) ?? null;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    throw error;
  }
}

/** Writes the lstat of `abs` at `o` in `out` (MISSING when it is missing); another error throws. */
function lstatInto(abs: string, out: Float64Array, o: number): void {
  writeStat(lstatOrNull(abs), out, o);
}

/** Writes `st` as FIELDS numbers at `o` in `out` (mode MISSING for null). */
export function writeStat(st: Stats | null, out: Float64Array, o: number): void {
  if (!st) out[o] = MISSING;
  else {
    out[o] = st.mode;
    out[o + 1] = st.size;
    out[o + 2] = st.mtimeMs;
    out[o + 3] = st.ctimeMs;
    out[o + 4] = st.ino;
  }
}

/** The answer for path `i` of `lstatValues`, as an object (null when missing). */
export function statAt(values: Float64Array, i: number): StatLike | null {
  const o = i * FIELDS;
  const mode = values[o]!;
  return mode === MISSING ? null : { mode, size: values[o + 1]!, mtimeMs: values[o + 2]!, ctimeMs: values[o + 3]!, ino: values[o + 4]! };
}

export function createStatPool({
  minBatch = 1000,
  threads = availableParallelism() > 1,
  helpers: helperCount = 1,
  waitMs = 10_000,
  idleMs = 60_000,
}: StatPoolOptions = {}): StatPool {
  /** The helper threads started together, and those that said they are ready (with the list each keeps). */
  let workers: Worker[] = [];
  const ready = new Map<Worker, readonly string[] | undefined>();
  let state: 'idle' | 'starting' | 'up' | 'off' = threads && helperCount > 0 ? 'idle' : 'off';
  let shared = 0;
  let idleTimer: NodeJS.Timeout | undefined;

  function stopAll() {
    const all = workers;
    workers = [];
    ready.clear();
    return Promise.all(all.map((w) => w.terminate())).then(() => {});
  }

  /** (Re)arms the idle stop: helpers that are up and had no list for `idleMs` are terminated, and the pool is idle again. */
  function touch() {
    if (idleTimer) idleTimer.refresh();
    else {
      idleTimer = setTimeout(() => {
        idleTimer = undefined;
        // Helpers still starting are not idle (on a busy machine a start can take longer than `idleMs`): the
        // first that is ready arms the timer again.
        if (state !== 'up') return;
        state = 'idle';
        void stopAll();
      }, idleMs);
      idleTimer.unref();
    }
  }

  function start(dir: string, first: readonly string[]) {
    state = 'starting';
    const { Worker } = loadBuiltin('node:worker_threads') as typeof import('node:worker_threads');
    const warm = first.slice(0, WARM_PATHS_MAX);
    for (let k = 0; k < helperCount; k++) {
      const worker = new Worker(HELPER, { eval: true, workerData: { dir, rels: warm } });
      worker.unref();
      worker.once('message', () => {
        if (!workers.includes(worker)) return;
        ready.set(worker, undefined);
        if (state === 'starting') state = 'up';
        touch();
      });
      worker.on('error', () => {
        if (workers.includes(worker)) giveUp();
      });
      worker.once('exit', () => {
        if (workers.includes(worker)) giveUp(); // not stopped on purpose (idle, closed, given up: those drop it first)
      });
      workers.push(worker);
    }
    touch();
  }

  function giveUp() {
    state = 'off';
    void stopAll();
  }

  function lstatValues(dir: string, rels: readonly string[]): Float64Array {
    const top = `${dir}${sep}`;
    const n = rels.length;
    if (n >= minBatch && state === 'idle') start(top, rels);
    if (n < minBatch || state !== 'up' || ready.size === 0) {
      const out = new Float64Array(n * FIELDS);
      for (let i = 0; i < n; i++) lstatInto(top + rels[i]!, out, i * FIELDS);
      return out;
    }
    touch();
    const chunk = chunkSize(n);
    const chunks = Math.ceil(n / chunk);
    const buffer = new SharedArrayBuffer(n * FIELDS * 8 + (chunks + 1) * 4);
    const out = new Float64Array(buffer, 0, n * FIELDS);
    const control = new Int32Array(buffer, n * FIELDS * 8, chunks + 1);
    for (const [worker, kept] of ready) {
      worker.postMessage({ dir: top, rels: kept === rels ? null : rels, buffer, chunk });
      ready.set(worker, rels);
    }
    // This thread takes chunks from the back, down to the second: the first is a helper's, whenever one wakes.
    let mine = 0;
    try {
      for (let c = chunks - 1; c >= 1; c--) {
        if (Atomics.compareExchange(control, c, FREE, MINE) !== FREE) break; // a helper has it, and all before it
        const end = Math.min(n, (c + 1) * chunk);
        for (let i = c * chunk; i < end; i++) lstatInto(top + rels[i]!, out, i * FIELDS);
        mine++;
      }
    } catch (error) {
      // Leave the helpers nothing more to do for this list, then throw as on one thread.
      for (let c = 0; c < chunks; c++) Atomics.compareExchange(control, c, FREE, MINE);
      throw error;
    }
    const deadline = performance.now() + waitMs;
    for (let done = Atomics.load(control, chunks); done + mine < chunks; done = Atomics.load(control, chunks)) {
      const left = deadline - performance.now();
      if (left > 0 && Atomics.wait(control, chunks, done, left) !== 'timed-out') continue;
      if (Atomics.load(control, chunks) + mine >= chunks) break;
      // The helpers did not answer in time: given up for good; what they had not done is done here.
      giveUp();
      for (let c = 0; c < chunks; c++) {
        const was = Atomics.compareExchange(control, c, FREE, MINE);
        if (was === HELPER_DONE || was === MINE) continue;
        const end = Math.min(n, (c + 1) * chunk);
        for (let i = c * chunk; i < end; i++) lstatInto(top + rels[i]!, out, i * FIELDS);
      }
      return out;
    }
    for (let c = 0; c < chunks; c++) {
      if (control[c] !== HELPER_DONE) continue;
      const end = Math.min(n, (c + 1) * chunk);
      shared += end - c * chunk;
      for (let i = c * chunk; i < end; i++) if (out[i * FIELDS] === FAILED) lstatInto(top + rels[i]!, out, i * FIELDS); // throws the error, as on one thread
    }
    return out;
  }

  return {
    lstatValues,
    lstatAll(dir, rels) {
      const values = lstatValues(dir, rels);
      return Array.from({ length: rels.length }, (_, i) => statAt(values, i));
    },
    helperLstats: () => shared,
    helperState: () => state,
    async close() {
      state = 'off';
      if (idleTimer) clearTimeout(idleTimer);
      idleTimer = undefined;
      await stopAll();
    },
  };
}
