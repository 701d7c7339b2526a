/**
 * lstat on two threads for a status of a large work tree, as git does (`core.preloadIndex`: its
 * lstats spread over threads). A status of 5,000 tracked files is one lstat per file, and on this
 * kind of machine that is ~4 µs of kernel time each, on one thread: most of the call. A helper thread
 * lstats part of the list while the calling thread does the rest; the caller then waits, on a shared
 * flag, for the helper's part (written into shared memory, no message back), so the call stays
 * synchronous, as the single-threaded loop it replaces.
 *
 * The helper (one per pool, a worker thread of about 7 MiB RSS) starts on the first batch large enough to
 * gain from it; until it is up, and whenever it is not (one CPU, a failed start, a helper that took
 * too long once), every lstat is done on the calling thread, so the answers never depend on it. It is
 * `unref`ed: it never keeps the process alive. The helper only lstats the absolute paths it is given,
 * which the caller has checked (nothing beyond a symbolic link: workTree.ts), and reads nothing.
 */
import { lstatSync, type Stats } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { sep } from 'node:path';

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
  /** Use a helper thread at all (default: when the machine has more than one CPU). */
  threads?: boolean;
  /** How long the caller waits for the helper's part before it gives the helper up (default 10 s). */
  waitMs?: number;
  /**
   * The helper stops after this long without a list (default 60 s) and starts again on the next large one, so
   * a server that is no longer used (a finished HTTP session's, in a host that creates one per session) holds
   * no thread.
   */
  idleMs?: number;
}

/** Numbers per path in the shared result: mode, size, mtimeMs, ctimeMs, ino. mode -1: missing; -2: another error. */
const FIELDS = 5;
const MISSING = -1;
const FAILED = -2;
/** The helper warms up on at most this many of the paths that started it. */
const WARM_PATHS_MAX = 2000;
/** The helper's part of a list: a little over half, as the calling thread also hands the list over and reads the answers. */
const HELPER_SHARE = 0.55;

/**
 * The helper's code, plain JavaScript run with `eval` so it needs no file of its own next to the bundle.
 * It is started with a list of paths, which it lstats (twice, answers dropped) before it says it is ready,
 * so the first list it is handed does not run cold. Each message: the paths and a shared buffer; it
 * writes FIELDS numbers per path, then sets the flag (the buffer's last Int32) to the message's sequence
 * number and wakes the caller.
 */
const HELPER = `
const { parentPort, workerData } = require('node:worker_threads');
const { lstatSync } = require('node:fs');
// Its first lstats, on the list that started it, make V8 compile this loop before a caller waits on it.
for (let round = 0; round < 2; round++) for (const rel of workerData.rels) try { lstatSync(workerData.dir + rel); } catch {}
parentPort.postMessage('ready');
parentPort.on('message', ({ seq, dir, rels, buffer }) => {
  const out = new Float64Array(buffer, 0, rels.length * ${FIELDS});
  for (let i = 0; i < rels.length; i++) {
    const o = i * ${FIELDS};
    try {
      const st = lstatSync(dir + rels[i]);
      out[o] = st.mode; out[o + 1] = st.size; out[o + 2] = st.mtimeMs; out[o + 3] = st.ctimeMs; out[o + 4] = st.ino;
    } catch (error) {
      out[o] = error && (error.code === 'ENOENT' || error.code === 'ENOTDIR') ? ${MISSING} : ${FAILED};
    }
  }
  const flag = new Int32Array(buffer, buffer.byteLength - 4, 1);
  Atomics.store(flag, 0, seq);
  Atomics.notify(flag, 0);
});
`;

/** lstat of `path`, or null when it is missing (ENOENT, or ENOTDIR: a file on its way); another error throws. */
export function lstatOrNull(path: string): Stats | null {
  try {
    return lstatSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    throw error;
  }
}

export function createStatPool({
  minBatch = 1000,
  threads = availableParallelism() > 1,
  waitMs = 10_000,
  idleMs = 60_000,
}: StatPoolOptions = {}): StatPool {
  let helper: Worker | undefined;
  let state: 'idle' | 'starting' | 'up' | 'off' = threads ? 'idle' : 'off';
  let seq = 0;
  let shared = 0;
  let idleTimer: NodeJS.Timeout | undefined;

  /** (Re)arms the idle stop: a helper with no list for `idleMs` is terminated, and the pool is idle again. */
  function touch() {
    if (idleTimer) idleTimer.refresh();
    else {
      idleTimer = setTimeout(() => {
        idleTimer = undefined;
        if (state !== 'starting' && state !== 'up') return;
        const worker = helper;
        helper = undefined;
        state = 'idle';
        void worker?.terminate();
      }, idleMs);
      idleTimer.unref();
    }
  }

  function start(dir: string, first: readonly string[]) {
    state = 'starting';
    const { Worker } = loadBuiltin('node:worker_threads') as typeof import('node:worker_threads');
    const worker = new Worker(HELPER, { eval: true, workerData: { dir, rels: first.slice(0, WARM_PATHS_MAX) } });
    worker.unref();
    worker.once('message', () => {
      if (state === 'starting' && helper === worker) state = 'up';
    });
    worker.on('error', () => {
      if (helper === worker) state = 'off';
    });
    worker.once('exit', () => {
      if (helper !== worker) return; // stopped on purpose (idle, closed, given up): the state is already set
      helper = undefined;
      state = 'off';
    });
    helper = worker;
    touch();
  }

  function giveUp() {
    state = 'off';
    void helper?.terminate();
    helper = undefined;
  }

  return {
    lstatAll(dir, rels) {
      const top = `${dir}${sep}`;
      if (rels.length >= minBatch && state === 'idle') start(top, rels);
      if (rels.length < minBatch || state !== 'up' || !helper) return rels.map((rel) => lstatOrNull(top + rel));
      touch();
      // The helper takes the first part; this thread, which also hands it over and reads its answers, the rest.
      const theirs = rels.slice(0, Math.round(rels.length * HELPER_SHARE));
      const buffer = new SharedArrayBuffer(theirs.length * FIELDS * 8 + 8);
      const flag = new Int32Array(buffer, buffer.byteLength - 4, 1);
      const mine = seq + 1;
      seq = mine;
      helper.postMessage({ seq: mine, dir: top, rels: theirs, buffer });
      const out: (StatLike | null)[] = new Array(rels.length);
      for (let i = theirs.length; i < rels.length; i++) out[i] = lstatOrNull(top + rels[i]!);
      if (Atomics.wait(flag, 0, 0, waitMs) === 'timed-out' && Atomics.load(flag, 0) !== mine) {
        giveUp();
        for (let i = 0; i < theirs.length; i++) out[i] = lstatOrNull(top + theirs[i]!);
        return out;
      }
      shared += theirs.length;
      const values = new Float64Array(buffer, 0, theirs.length * FIELDS);
      for (let i = 0; i < theirs.length; i++) {
        const o = i * FIELDS;
        const mode = values[o]!;
        if (mode === MISSING) out[i] = null;
        else if (mode === FAILED)
          out[i] = lstatOrNull(top + theirs[i]!); // throws the error, as on one thread
        else out[i] = { mode, size: values[o + 1]!, mtimeMs: values[o + 2]!, ctimeMs: values[o + 3]!, ino: values[o + 4]! };
      }
      return out;
    },
    helperLstats: () => shared,
    helperState: () => state,
    async close() {
      state = 'off';
      if (idleTimer) clearTimeout(idleTimer);
      idleTimer = undefined;
      const worker = helper;
      helper = undefined;
      await worker?.terminate();
    },
  };
}
