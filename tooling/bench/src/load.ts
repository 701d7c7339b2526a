/** Load and resource figures: latency, throughput, interleaved load, CPU time and peak RSS from /proc, timeouts. */
import { readdirSync, readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { type Stats, stats } from './stats.js';

/** Per-call wall time (ms) of `n` sequential calls of `fn`, after `warmup` (default n/10, max 200) discarded calls. */
export async function latency(
  fn: () => Promise<unknown>,
  n: number,
  options: { warmup?: number } = {},
): Promise<Stats & { samples: number[] }> {
  const warmup = options.warmup ?? Math.min(200, Math.ceil(n / 10));
  for (let i = 0; i < warmup; i++) await fn();
  const samples: number[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn();
    samples[i] = performance.now() - t0;
  }
  return { ...stats(samples), samples };
}

export interface Throughput {
  total: number;
  concurrency: number;
  seconds: number;
  /** Completed calls per second. */
  perSecond: number;
}

/** `total` calls of `fn` with `concurrency` in flight at all times (each worker starts the next call when one ends). */
export async function throughput(fn: (i: number) => Promise<unknown>, total: number, concurrency: number): Promise<Throughput> {
  let next = 0;
  const t0 = performance.now();
  const worker = async () => {
    while (next < total) await fn(next++);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, total) }, worker));
  const seconds = (performance.now() - t0) / 1000;
  return { total, concurrency, seconds, perSecond: total / seconds };
}

/** One side of `interleavedLoad`: a label for errors and the call to time (`i` counts its calls). */
export interface LoadSide {
  label: string;
  call(i: number): Promise<unknown>;
  /** The server process answering this side, when it is its own: its CPU time over the timed calls is measured. */
  pid?: number;
}

export interface LoadFigures {
  latency: Stats;
  /** At the first of `concurrency`; absent when `total` is 0 (latency only). */
  throughput?: Throughput;
  /** One per entry of `concurrency`, in order (empty when `total` is 0). */
  throughputs: Throughput[];
  /**
   * The server's CPU time per timed call (latency and throughput phases, warm-up excluded), µs, from /proc
   * (`cpuTimeMs`); only with a `pid`, and where /proc exists. Hardly moved by other jobs, unlike wall-clock figures.
   */
  cpuPerCallUs?: number;
}

export interface InterleavedLoadOptions {
  /** Sequential calls per side, for latency (split over the blocks). */
  calls: number;
  /** Calls per side at each `concurrency`, for throughput (split over the blocks; 0 = none). */
  total: number;
  /** Alternating blocks: side A's share, side B's, ..., then A again, so a burst of machine noise does not land on one side only. */
  blocks: number;
  /** Calls in flight for throughput; several (`[8, 64]`) measure each in every block. */
  concurrency: number | readonly number[];
  /** Untimed calls per side before the first block (default 200). */
  warmup?: number;
  /** Bound on each side's latency or throughput phase of one block (default 120 s). */
  phaseTimeoutMs?: number;
}

interface SideAcc {
  samples: number[];
  thr: { seconds: number; done: number }[];
  n: number;
  cpuMs: number;
  timed: number;
  cpuKnown: boolean;
}

/** Runs `phase` (`calls` timed calls) and adds the server's CPU time over it to `a` when the side has a pid. */
async function timedPhase<T>(side: LoadSide, a: SideAcc, calls: number, phase: () => Promise<T>): Promise<T> {
  const before = side.pid === undefined ? undefined : cpuTimeMs(side.pid);
  const result = await phase();
  const after = side.pid === undefined ? undefined : cpuTimeMs(side.pid);
  if (before === undefined || after === undefined) a.cpuKnown = false;
  else a.cpuMs += after - before;
  a.timed += calls;
  return result;
}

/**
 * Latency (one call at a time) and throughput (at each `concurrency`) of several sides, measured in
 * alternating blocks after an untimed warm-up of each side. Returns one figure per side, in order.
 */
export async function interleavedLoad(sides: readonly LoadSide[], options: InterleavedLoadOptions): Promise<LoadFigures[]> {
  const { blocks } = options;
  const levels = typeof options.concurrency === 'number' ? [options.concurrency] : options.concurrency;
  const phaseTimeoutMs = options.phaseTimeoutMs ?? 120_000;
  const acc: SideAcc[] = sides.map((s) => ({
    samples: [],
    thr: levels.map(() => ({ seconds: 0, done: 0 })),
    n: 0,
    cpuMs: 0,
    timed: 0,
    cpuKnown: s.pid !== undefined,
  }));
  for (const [s, side] of sides.entries()) {
    for (let w = 0; w < (options.warmup ?? 200); w++) await side.call(acc[s]!.n++);
  }
  const calls = Math.ceil(options.calls / blocks);
  const total = Math.ceil(options.total / blocks);
  for (let b = 0; b < blocks; b++) {
    for (const [s, side] of sides.entries()) {
      const a = acc[s]!;
      const lat = await timedPhase(side, a, calls, () =>
        withTimeout(
          latency(() => side.call(a.n++), calls, { warmup: 0 }),
          phaseTimeoutMs,
          `${side.label} latency`,
        ),
      );
      a.samples.push(...lat.samples);
      if (total === 0) continue;
      for (const [l, level] of levels.entries()) {
        const thr = await timedPhase(side, a, total, () =>
          withTimeout(
            throughput(() => side.call(a.n++), total, level),
            phaseTimeoutMs,
            `${side.label} throughput at ${level}`,
          ),
        );
        a.thr[l]!.seconds += thr.seconds;
        a.thr[l]!.done += thr.total;
      }
    }
  }
  return acc.map((a) => {
    const throughputs =
      total === 0
        ? []
        : a.thr.map((t, l) => ({ total: t.done, concurrency: levels[l]!, seconds: t.seconds, perSecond: t.done / t.seconds }));
    return {
      latency: stats(a.samples),
      throughputs,
      ...(throughputs[0] ? { throughput: throughputs[0] } : {}),
      ...(a.cpuKnown && a.timed > 0 ? { cpuPerCallUs: (a.cpuMs / a.timed) * 1000 } : {}),
    };
  });
}

/**
 * CPU time a live process has used so far, in ms, all its threads (the `schedstat` of every task under `/proc/<pid>/task`, ns
 * precision; Linux). A load's server CPU per call is the difference over the load ÷ its calls: unlike a
 * wall-clock figure it hardly moves when other jobs share the machine. Undefined where /proc is unavailable.
 */
export function cpuTimeMs(pid: number): number | undefined {
  try {
    let ns = 0;
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      ns += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]);
    }
    return ns / 1e6;
  } catch {
    return undefined;
  }
}

export interface Rss {
  /** Peak resident set size (VmHWM), bytes. */
  peak: number;
  /** Current resident set size (VmRSS), bytes. */
  current: number;
}

/**
 * Peak and current RSS of a live process from /proc/<pid>/status (Linux). Call it at the end of a
 * load, before closing the connection. Returns undefined where /proc is unavailable.
 */
export function peakRss(pid: number): Rss | undefined {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return undefined;
  }
  const kb = (key: string) => {
    const m = new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status);
    return m ? Number(m[1]) * 1024 : undefined;
  };
  const current = kb('VmRSS');
  const peak = kb('VmHWM') ?? current;
  return peak === undefined || current === undefined ? undefined : { peak, current };
}

/** Reject with a clear message if `promise` takes longer than `timeoutMs`. */
export function withTimeout<T>(promise: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, fail) => {
    timer = setTimeout(() => fail(new Error(`${what} took longer than ${timeoutMs} ms`)), timeoutMs);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
