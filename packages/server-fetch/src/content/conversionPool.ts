import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { type Logger, silentLogger } from '@mcpkit/protocol-core';
import { formatDuration, formatElapsed } from '../format.js';
import { type Converted, convertBody, UnconvertibleError } from './convert.js';
import { createFairQueue, type FairLane } from './fairQueue.js';
import { createHtmlConverter } from './html.js';

interface ConversionJob {
  /** The body; its buffer is transferred to the worker (and detached here) when the view covers all of it. */
  body: Uint8Array;
  contentType: string;
  url: string;
  raw: boolean;
}

/** Main thread → worker. */
export interface ConversionRequest extends ConversionJob {
  id: number;
}

/** Worker → main thread. */
export type ConversionReply =
  | { id: number; ok: true; result: Converted }
  | { id: number; ok: false; error: { name: string; message: string; stack: string } };

interface ConversionDeadline {
  /** When the conversion must have finished, as a `performance.now()` time: the fetch's own deadline. */
  deadline: number;
  /** The configured limit (`--timeout`), for the error message. */
  limitMs: number;
  /**
   * The request's signal: when it aborts (the client cancelled), a waiting conversion leaves the queue
   * and a running one takes its worker with it, as at the deadline; `convert` rejects at once.
   */
  signal?: AbortSignal;
}

/** One session's share of the workers (see fairQueue.ts for the rule). */
export interface ConversionLane {
  convert(job: ConversionJob, deadline: ConversionDeadline): Promise<Converted>;
  /** The session ended: its lane no longer holds workers back for it (what it still runs finishes). */
  close(): void;
}

export interface Converter {
  /** A conversion for no session in particular (direct use of the fetcher): one lane for all such callers. */
  convert(job: ConversionJob, deadline: ConversionDeadline): Promise<Converted>;
  /** A lane for one session (one per server instance, so one per HTTP session). */
  openLane(): ConversionLane;
  close(): Promise<void>;
}

export interface ConverterOptions {
  /**
   * The worker module. Default: `convertWorker.js` next to this file (it is built into `dist/`); when
   * there is none (running from TypeScript source) conversions run in-process, without the deadline.
   * `false`: in-process.
   */
  worker?: URL | false;
  /**
   * Worker threads at most; more conversions at once wait. Default 2 to 4, by CPU count. While
   * sessions share them, one session runs at most half of them (rounded up) at once.
   */
  maxWorkers?: number;
  /** Conversions one session may have waiting while other sessions share the workers. Default 8. */
  maxQueuedPerSession?: number;
  /** An idle worker beyond the first is stopped after this long. Default 30 s. */
  idleMs?: number;
  logger?: Logger;
}

function builtWorker(): URL | undefined {
  try {
    const url = new URL('./convertWorker.js', import.meta.url);
    return existsSync(fileURLToPath(url)) ? url : undefined;
  } catch {
    return undefined;
  }
}

/** What a cancelled conversion rejects with (the caller, which aborted, has its own message). */
function cancelledError(): UnconvertibleError {
  return new UnconvertibleError('the conversion was cancelled');
}

function inProcess(): Converter {
  const html = createHtmlConverter();
  // Nothing to stop here (the conversion runs on this thread); a cancel only stops the wait for it.
  const convert: Converter['convert'] = (job, { signal }) => {
    if (signal?.aborted) return Promise.reject(cancelledError());
    const converted = convertBody(job.body, job.contentType, job.url, { raw: job.raw, html });
    if (!signal) return converted;
    let onAbort = () => {};
    const aborted = new Promise<never>((_resolve, reject) => {
      onAbort = () => reject(cancelledError());
      signal.addEventListener('abort', onAbort, { once: true });
    });
    return Promise.race([converted, aborted]).finally(() => signal.removeEventListener('abort', onAbort));
  };
  // No workers to share: every lane converts on this thread.
  return { convert, openLane: () => ({ convert, close() {} }), async close() {} };
}

/** An error from the worker, as the same kind of error here (an `UnconvertibleError` stays one). */
function revive({ name, message, stack }: { name: string; message: string; stack: string }): Error {
  if (name === 'UnconvertibleError') return new UnconvertibleError(message);
  return Object.assign(new Error(message), { name, stack });
}

interface Task {
  id: number;
  job: ConversionJob;
  lane: FairLane;
  limitMs: number;
  /** When it joined its lane's queue, and when a worker took it (`performance.now()`). */
  queuedAt: number;
  startedAt?: number;
  settled?: boolean;
  resolve: (value: Converted) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout | undefined;
  /** Removes the abort listener from the request's signal. */
  release: () => void;
}

interface Slot {
  worker: Worker;
  task?: Task;
  idle?: NodeJS.Timeout;
}

/**
 * The deadline passed while the task still waited for a worker: the server was busy, the page was
 * never looked at.
 */
function busyError(task: Task, now: number): UnconvertibleError {
  return new UnconvertibleError(
    `the server is busy: the response arrived, but it waited ${formatElapsed(now - task.queuedAt)} for a conversion worker (all were busy with other conversions) and the ${formatDuration(task.limitMs)} limit ran out before converting it could start; the page was not the problem, try again in a moment`,
  );
}

/** The deadline passed during the conversion; how long it first waited for a worker is said when that counted. */
function overtimeError(task: Task, startedAt: number, now: number): UnconvertibleError {
  const limit = `the response arrived, but converting it to text did not finish within the ${formatDuration(task.limitMs)} limit`;
  const waited = startedAt - task.queuedAt;
  if (waited < 1000) return new UnconvertibleError(`${limit} (raise it with --timeout)`);
  return new UnconvertibleError(
    `${limit}: it waited ${formatElapsed(waited)} for a conversion worker (the server is busy) and converted for ${formatElapsed(now - startedAt)} (raise it with --timeout, or try again when the server is less busy)`,
  );
}

/**
 * Converts response bodies (HTML → Markdown, PDF → text, charset decoding) in worker threads, each
 * conversion bounded by the fetch's deadline: at the deadline the worker running it is terminated
 * (whatever it is doing, a pathological page included) and replaced on demand, so a page can neither
 * block the server's event loop nor outlive `--timeout`. Workers are reused across calls (loading the
 * libraries once), a second one starts only while the first is busy (so one stuck page does not hold
 * up the others), and none keeps the process alive on its own (`unref`). Sessions share the workers
 * fairly (`openLane`; the rule is in fairQueue.ts): one session's slow pages cannot hold every worker
 * while another session waits.
 */
export function createConverter(options: ConverterOptions = {}): Converter {
  const logger = options.logger ?? silentLogger;
  const workerUrl = options.worker === false ? undefined : (options.worker ?? builtWorker());
  if (!workerUrl) {
    logger.debug('conversions run in-process (no built convertWorker.js): a slow page is not stopped by --timeout');
    return inProcess();
  }
  const maxWorkers = Math.max(1, options.maxWorkers ?? Math.min(4, Math.max(2, availableParallelism())));
  const maxQueued = options.maxQueuedPerSession ?? 8;
  const idleMs = options.idleMs ?? 30_000;
  const slots = new Set<Slot>();
  const queue = createFairQueue<Task>({ maxRunning: Math.ceil(maxWorkers / 2), maxQueued });
  let nextId = 0;
  let closed = false;

  function settle(task: Task, outcome: { result: Converted } | { error: Error }): void {
    if (task.settled) return;
    task.settled = true;
    clearTimeout(task.timer);
    task.release();
    if (task.startedAt !== undefined) queue.finished(task.lane);
    if ('result' in outcome) task.resolve(outcome.result);
    else task.reject(outcome.error);
  }

  function retire(slot: Slot): void {
    slots.delete(slot);
    clearTimeout(slot.idle);
    void slot.worker.terminate().catch(() => {});
  }

  /** The worker died on its own (an uncaught error, out of memory): its task fails, the slot goes. */
  function lost(slot: Slot, error: Error & { code?: string }): void {
    if (!slots.has(slot)) return;
    slots.delete(slot);
    clearTimeout(slot.idle);
    const task = slot.task;
    if (task) {
      const failure =
        error.code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? new UnconvertibleError('converting the response to text ran out of memory')
          : new Error(`the conversion worker failed: ${error.message}`, { cause: error });
      settle(task, { error: failure });
    }
    dispatch();
  }

  function spawn(): Slot {
    const worker = new Worker(workerUrl as URL);
    const slot: Slot = { worker };
    worker.on('message', (reply: ConversionReply) => {
      const task = slot.task;
      if (!task || task.id !== reply.id) return;
      slot.task = undefined;
      settle(task, reply.ok ? { result: reply.result } : { error: revive(reply.error) });
      if (slots.size > 1) {
        slot.idle = setTimeout(() => {
          if (!slot.task && slots.size > 1) retire(slot);
        }, idleMs);
        slot.idle.unref();
      }
      dispatch();
    });
    worker.on('error', (error) => lost(slot, error));
    worker.on('exit', (code) => lost(slot, new Error(`it exited with code ${code}`)));
    // After the listeners: adding a 'message' listener refs the worker again.
    worker.unref();
    slots.add(slot);
    return slot;
  }

  /** Gives free workers (starting one when fewer than `maxWorkers` run) to the tasks the fair queue picks. */
  function dispatch(): void {
    while (!closed) {
      let slot = [...slots].find((s) => !s.task);
      if (!slot && slots.size >= maxWorkers) return;
      const next = queue.next();
      if (!next) return;
      slot ??= spawn();
      const { task } = next;
      task.startedAt = performance.now();
      clearTimeout(slot.idle);
      slot.task = task;
      const { body } = task.job;
      const whole = body.byteOffset === 0 && body.byteLength === body.buffer.byteLength && body.buffer instanceof ArrayBuffer;
      const request: ConversionRequest = { id: task.id, ...task.job };
      slot.worker.postMessage(request, whole ? [body.buffer as ArrayBuffer] : []);
    }
  }

  /**
   * The deadline passed or the request was cancelled (`why`): a waiting task leaves the queue, a
   * running one takes its worker with it.
   */
  function stop(task: Task, why: 'at the deadline' | 'on cancel', error: Error): void {
    queue.remove(task.lane, task);
    for (const slot of slots) {
      if (slot.task !== task) continue;
      slot.task = undefined;
      retire(slot);
      logger.debug(`conversion of ${task.job.url} stopped ${why}; its worker was terminated`);
    }
    settle(task, { error });
    dispatch();
  }

  function convert(lane: FairLane, job: ConversionJob, { deadline, limitMs, signal }: ConversionDeadline): Promise<Converted> {
    if (closed) return Promise.reject(new UnconvertibleError('the server is shutting down'));
    if (signal?.aborted) return Promise.reject(cancelledError());
    return new Promise<Converted>((resolve, reject) => {
      const task: Task = {
        id: ++nextId,
        job,
        lane,
        limitMs,
        queuedAt: performance.now(),
        resolve,
        reject,
        timer: undefined,
        release: () => {},
      };
      if (!queue.push(lane, task)) {
        reject(
          new UnconvertibleError(
            `the server is busy: this session already has ${maxQueued} pages waiting for a conversion worker, which other sessions share; try again once those are done`,
          ),
        );
        return;
      }
      task.timer = setTimeout(
        () => {
          const now = performance.now();
          stop(task, 'at the deadline', task.startedAt === undefined ? busyError(task, now) : overtimeError(task, task.startedAt, now));
        },
        Math.max(0, deadline - performance.now()),
      );
      if (signal) {
        const onAbort = () => stop(task, 'on cancel', cancelledError());
        signal.addEventListener('abort', onAbort, { once: true });
        task.release = () => signal.removeEventListener('abort', onAbort);
      }
      dispatch();
    });
  }

  return {
    convert: (job, deadline) => convert(queue.sharedLane, job, deadline),
    openLane() {
      const lane = queue.openLane();
      return {
        convert: (job, deadline) => convert(lane, job, deadline),
        close() {
          if (!lane.open) return;
          queue.closeLane(lane);
          dispatch(); // the others' limits may lift
        },
      };
    },
    async close() {
      closed = true;
      const error = new UnconvertibleError('the server shut down before the conversion finished');
      const running = [...slots];
      for (const task of queue.drain()) settle(task, { error });
      for (const slot of running) if (slot.task) settle(slot.task, { error });
      slots.clear();
      await Promise.allSettled(running.map((s) => s.worker.terminate()));
    },
  };
}
