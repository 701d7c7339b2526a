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
}

export interface LoadFigures {
  latency: Stats;
  /** Absent when `total` is 0 (latency only). */
  throughput?: Throughput;
}

export interface InterleavedLoadOptions {
  /** Sequential calls per side, for latency (split over the blocks). */
  calls: number;
  /** Calls per side with `concurrency` in flight, for throughput (split over the blocks; 0 = none). */
  total: number;
  /** Alternating blocks: side A's share, side B's, ..., then A again, so a burst of machine noise does not land on one side only. */
  blocks: number;
  concurrency: number;
  /** Untimed calls per side before the first block (default 200). */
  warmup?: number;
  /** Bound on each side's latency or throughput phase of one block (default 120 s). */
  phaseTimeoutMs?: number;
}

/**
 * Latency (one call at a time) and throughput (`concurrency` in flight) of several sides, measured
 * in alternating blocks after an untimed warm-up of each side. Returns one figure per side, in order.
 */
export async function interleavedLoad(sides: readonly LoadSide[], options: InterleavedLoadOptions): Promise<LoadFigures[]> {
  const { blocks, concurrency } = options;
  const phaseTimeoutMs = options.phaseTimeoutMs ?? 120_000;
  const acc = sides.map(() => ({ samples: [] as number[], seconds: 0, done: 0, n: 0 }));
  for (const [s, side] of sides.entries()) {
    for (let w = 0; w < (options.warmup ?? 200); w++) await side.call(acc[s]!.n++);
  }
  for (let b = 0; b < blocks; b++) {
    for (const [s, side] of sides.entries()) {
      const a = acc[s]!;
      const calls = Math.ceil(options.calls / blocks);
      const lat = await withTimeout(
        latency(() => side.call(a.n++), calls, { warmup: 0 }),
        phaseTimeoutMs,
        `${side.label} latency`,
      );
      a.samples.push(...lat.samples);
      const total = Math.ceil(options.total / blocks);
      if (total === 0) continue;
      const thr = await withTimeout(
        throughput(() => side.call(a.n++), total, concurrency),
        phaseTimeoutMs,
        `${side.label} throughput`,
      );
      a.seconds += thr.seconds;
      a.done += thr.total;
    }
  }
  return acc.map((a) => ({
    latency: stats(a.samples),
    ...(a.done > 0 ? { throughput: { total: a.done, concurrency, seconds: a.seconds, perSecond: a.done / a.seconds } } : {}),
  }));
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
