/**
 * The benchmark harness: what a suite receives (`BenchContext`) and the measurement helpers every
 * suite shares, so that all servers are measured the same way.
 *
 * A suite is a file `src/suites/<name>.ts` whose default export is a `Suite`. `src/main.ts` finds,
 * filters (`--only <name>`) and runs the suites one after another, then prints a summary and writes
 * every recorded table and check to `results/latest.json`.
 *
 * Rules the helpers follow (and suites should too):
 * - Every figure of ours is measured in the same run as the reference it is compared to; cold starts
 *   of several servers are interleaved (A, B, floor, A, B, floor, ...) so drift hits all alike.
 * - Everything is bounded: a fixed number of runs/calls and a timeout per spawn and per call.
 * - `ctx.quick` (from `--quick` or BENCH_QUICK=1) is a smoke pass: use `ctx.scale(full, quick)`
 *   for counts. Quick figures are too noisy to judge targets by; checks are still printed.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

// ---------------------------------------------------------------------------------------------
// Suite and context
// ---------------------------------------------------------------------------------------------

export interface Suite<Prepared = unknown> {
  /** Short name used by `--only` and as the key in results/latest.json (e.g. `sequential-thinking`). */
  name: string;
  description?: string;
  /**
   * One-time setup that may take minutes the first time (e.g. building the baseline), run before
   * `run` under its own, longer time bound; what it returns is passed to `run`.
   */
  prepare?(ctx: BenchContext): Promise<Prepared>;
  run(ctx: BenchContext, prepared: Prepared): Promise<void>;
}

/** A table a suite recorded; printed at once and kept for the summary and the JSON file. */
export interface BenchTable {
  title: string;
  headers: string[];
  rows: Cell[][];
  /** Lines printed under the table (units, caveats). */
  notes?: string[];
}

export type Cell = string | number;

/** A target the suite judged, e.g. "cold start ≤ 0.6× reference". */
export interface BenchCheck {
  label: string;
  pass: boolean;
  /** The measured value in words, e.g. "0.41× (61.2 ms vs 149.0 ms)". */
  detail: string;
}

export interface BenchContext {
  /** Fast smoke pass (`--quick` or BENCH_QUICK=1): fewer runs and calls, figures are indicative only. */
  readonly quick: boolean;
  /** Suite names given with `--only` (empty = all). The runner applies it; suites may ignore it. */
  readonly filter: readonly string[];
  /** Absolute path of tooling/bench. */
  readonly benchDir: string;
  /** Absolute path of the repository root. */
  readonly repoRoot: string;
  /** Git ref of the baseline build (`--baseline <ref>` or BENCH_BASELINE; default: see baseline.ts). */
  readonly baseline: string;
  /** Print one line (or several, joined by newlines) to stdout. */
  print(text?: string): void;
  /** `quick ? quickValue : fullValue`; use it for every count so `--quick` stays fast. */
  scale(full: number, quick: number): number;
  /** Print a table and record it under this suite in the results. */
  table(table: BenchTable): void;
  /** Record a pass/fail against a target; printed now and in the final summary. */
  check(label: string, pass: boolean, detail: string): void;
  /** Record raw figures (any JSON value) under this suite in results/latest.json. */
  record(key: string, value: unknown): void;
}

// ---------------------------------------------------------------------------------------------
// Statistics and formatting
// ---------------------------------------------------------------------------------------------

export interface Stats {
  n: number;
  median: number;
  p90: number;
  p99: number;
  mean: number;
  min: number;
  max: number;
}

/** Order statistics of `samples` (nearest-rank percentiles). Throws on an empty list. */
export function stats(samples: readonly number[]): Stats {
  if (samples.length === 0) throw new Error('stats() needs at least one sample');
  const s = [...samples].sort((a, b) => a - b);
  const pct = (p: number) => s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
  const mid = s.length >> 1;
  const median = s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
  return {
    n: s.length,
    median,
    p90: pct(90),
    p99: pct(99),
    mean: s.reduce((a, b) => a + b, 0) / s.length,
    min: s[0]!,
    max: s[s.length - 1]!,
  };
}

/** `ours / ref` as `0.52×` (lower is better for times and memory, higher for throughput). */
export function ratio(ours: number, ref: number): string {
  if (!Number.isFinite(ours) || !Number.isFinite(ref) || ref === 0) return 'n/a';
  return `${(ours / ref).toFixed(2)}×`;
}

/** `ratio(ours, other)` with both values: `0.43× (121.1 ms vs 282.4 ms)`, the detail of a time check. */
export function versus(ours: number, other: number): string {
  return `${ratio(ours, other)} (${ms(ours)} vs ${ms(other)})`;
}

/** Milliseconds with a precision that suits the size: `0.083 ms`, `1.24 ms`, `61.2 ms`. */
export function ms(value: number): string {
  if (!Number.isFinite(value)) return 'n/a';
  const digits = value < 1 ? 3 : value < 10 ? 2 : 1;
  return `${value.toFixed(digits)} ms`;
}

/** Bytes as MiB with one decimal: `48.3 MiB`. */
export function mib(bytes: number | undefined): string {
  return bytes === undefined ? 'n/a' : `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/** Aligned plain-text table (first column left-aligned, the rest right-aligned). */
export function table(headers: readonly string[], rows: readonly (readonly Cell[])[]): string {
  const text = [headers, ...rows].map((r) => r.map((c) => String(c)));
  const widths = headers.map((_, i) => Math.max(...text.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) =>
    r
      .map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(text[0]!), widths.map((w) => '-'.repeat(w)).join('  '), ...text.slice(1).map(line)].join('\n');
}

// ---------------------------------------------------------------------------------------------
// Processes
// ---------------------------------------------------------------------------------------------

/** How to start a server. `command` defaults to this Node binary (process.execPath). */
export interface SpawnSpec {
  /** Shown in tables, e.g. `ours`, `reference`, `floor`. */
  label: string;
  command?: string;
  args: string[];
  /** The child's environment beyond the few variables in `PASSED_ENV` (the rest of ours is not passed). */
  env?: Record<string, string>;
  cwd?: string;
}

const here = dirname(fileURLToPath(import.meta.url));
/** Absolute path of tooling/bench. */
export const benchDir = resolve(here, '..');
/** Absolute path of the repository root. */
export const repoRoot = resolve(benchDir, '../..');

/** The floor: a bare Node process that answers `initialize` over stdio and exits when stdin closes. */
export function floorSpec(): SpawnSpec {
  return { label: 'floor', args: [join(here, 'floor.mjs')] };
}

/** Node running a script: `{ label, args: [script, ...args], env }`. */
export function nodeSpec(label: string, script: string, args: string[] = [], env?: Record<string, string>): SpawnSpec {
  return { label, args: [script, ...args], ...(env ? { env } : {}) };
}

/**
 * The environment every child gets: only these variables from ours, plus `spec.env`. A bench must
 * not depend on the shell it runs in: NODE_OPTIONS would add flags, and NODE_EXTRA_CA_CERTS (set on
 * many CI and corporate machines) makes every Node process parse a CA bundle at start-up, which
 * added ~45 ms to every cold start here, floor included. Under turbo (strict env mode) most
 * variables are dropped anyway; this makes a direct run measure the same thing.
 */
const PASSED_ENV = ['PATH', 'HOME', 'USER', 'TMPDIR', 'TMP', 'TEMP', 'LANG', 'LC_ALL', 'TZ', 'SYSTEMROOT'] as const;

export function childEnv(spec: SpawnSpec): Record<string, string> {
  const env: Record<string, string> = {};
  for (const k of PASSED_ENV) {
    const v = process.env[k];
    if (v !== undefined) env[k] = v;
  }
  return { ...env, ...spec.env };
}

/**
 * Path of an installed package's bin script (a reference server from devDependencies, or one of
 * our workspace servers as linked into tooling/bench/node_modules). Looks in tooling/bench's
 * node_modules, then upwards.
 */
export function binPath(pkg: string, binName?: string): string {
  let dir = benchDir;
  for (;;) {
    const manifest = join(dir, 'node_modules', pkg, 'package.json');
    if (existsSync(manifest)) {
      const json = JSON.parse(readFileSync(manifest, 'utf8')) as { bin?: string | Record<string, string> };
      const rel = typeof json.bin === 'string' ? json.bin : json.bin?.[binName ?? Object.keys(json.bin ?? {})[0] ?? ''];
      if (!rel) throw new Error(`${pkg} has no bin${binName ? ` named ${binName}` : ''}`);
      const file = resolve(dirname(manifest), rel);
      // mcpkit's bins are committed shims (bin/<name>.js) that import dist/: the build is what may be missing.
      const built = pkg.startsWith('@mcpkit/') ? join(dirname(manifest), 'dist', 'index.js') : file;
      if (!existsSync(file) || !existsSync(built)) {
        throw new Error(`${pkg}: ${existsSync(file) ? built : file} does not exist (not built? run the build first)`);
      }
      return file;
    }
    const up = dirname(dir);
    if (up === dir) throw new Error(`package ${pkg} is not installed (add it to tooling/bench/package.json)`);
    dir = up;
  }
}

const CLIENT_INFO = { name: 'mcpkit-bench', version: '0.0.0' };

/** The two protocol revisions a cold start can open with. */
export type Era = '2025-11-25' | '2026-07-28';

/** The per-request `_meta` envelope of a 2026-07-28 request (protocol version, client info and capabilities). */
const META_2026 = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': CLIENT_INFO,
  'io.modelcontextprotocol/clientCapabilities': {},
};

const jsonLine = (msg: object) => `${JSON.stringify({ jsonrpc: '2.0', ...msg })}\n`;

/** What a cold start writes: the opening request (id 1), and what follows its answer when `until` is `tools/list` (id 2). */
const OPENING: Record<Era, { first: string; next: string }> = {
  '2025-11-25': {
    first: jsonLine({ id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: CLIENT_INFO } }),
    next: jsonLine({ method: 'notifications/initialized' }) + jsonLine({ id: 2, method: 'tools/list' }),
  },
  '2026-07-28': {
    first: jsonLine({ id: 1, method: 'server/discover', params: { _meta: META_2026 } }),
    next: jsonLine({ id: 2, method: 'tools/list', params: { _meta: META_2026 } }),
  },
};

function waitExit(child: ChildProcess, timeoutMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((done) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      done();
    }, timeoutMs);
    child.once('exit', () => {
      clearTimeout(timer);
      done();
    });
  });
}

/** Options of `coldStarts` beyond the warm-up. */
export interface ColdStartOptions {
  /** Rounds discarded before measuring (default 2). */
  warmup?: number;
  /**
   * What ends the measurement: the `initialize` result (default), or the first `tools/list` result,
   * requested (with `notifications/initialized`) as soon as the `initialize` result arrives, as a
   * client does. Use `tools/list` for servers that register tools only after the handshake.
   */
  until?: 'initialize' | 'tools/list';
  /**
   * How the client opens (default `2025-11-25`): `initialize`, or (`2026-07-28`) `server/discover`
   * with the per-request `_meta` envelope, as a 2026 client does; `until: 'initialize'` then ends at
   * the `server/discover` result, and `tools/list` carries the envelope (no `initialized` notification).
   */
  era?: Era;
  /**
   * How the child is ended after the measurement: `stdin` (default) closes stdin and waits up to 5 s
   * for the exit, then SIGKILL; `kill` closes stdin and sends SIGTERM at once, for servers whose
   * timers keep them alive after stdin closes (the exit is never part of the figure).
   */
  stop?: 'stdin' | 'kill';
}

/**
 * One cold start: spawn a fresh process, write `initialize` (or, in the 2026 era, `server/discover`)
 * to its stdin at once, and time until that request's result line (or, with `until: 'tools/list'`, the first `tools/list` result)
 * arrives on stdout (ms). Then ends the child (see `ColdStartOptions.stop`). Rejects on a JSON-RPC
 * error, an early exit, or after `timeoutMs`.
 */
async function coldStartOnce(spec: SpawnSpec, options: ColdStartOptions = {}, timeoutMs = 15_000): Promise<number> {
  const until = options.until ?? 'initialize';
  const opening = OPENING[options.era ?? '2025-11-25'];
  const first = options.era === '2026-07-28' ? 'server/discover' : 'initialize';
  const started = performance.now();
  const child = spawn(spec.command ?? process.execPath, spec.args, {
    cwd: spec.cwd,
    env: childEnv(spec),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-2000);
  });
  child.stdin.on('error', () => {});
  child.stdin.write(opening.first);
  try {
    return await new Promise<number>((done, fail) => {
      let buf = '';
      const timer = setTimeout(
        () => fail(new Error(`${spec.label}: no ${until === 'initialize' ? first : until} result within ${timeoutMs} ms`)),
        timeoutMs,
      );
      child.stdout.on('data', (d: Buffer) => {
        buf += d.toString();
        for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
          const line = buf.slice(0, nl);
          buf = buf.slice(nl + 1);
          let msg: { id?: unknown; result?: unknown; error?: unknown };
          try {
            msg = JSON.parse(line);
          } catch {
            continue;
          }
          if (msg.id !== 1 && msg.id !== 2) continue;
          const method = msg.id === 1 ? first : 'tools/list';
          if (!msg.result) {
            clearTimeout(timer);
            fail(new Error(`${spec.label}: ${method} failed: ${JSON.stringify(msg.error)}`));
            return;
          }
          if ((msg.id === 1 ? 'initialize' : 'tools/list') === until) {
            clearTimeout(timer);
            done(performance.now() - started);
            return;
          }
          child.stdin.write(opening.next);
        }
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        fail(
          new Error(
            `${spec.label}: exited (${code ?? signal}) before answering ${until === 'initialize' ? first : until}. stderr: ${stderr.trim()}`,
          ),
        );
      });
      child.once('error', (err) => {
        clearTimeout(timer);
        fail(err);
      });
    });
  } finally {
    child.stdin.end();
    if (options.stop === 'kill') child.kill('SIGTERM');
    await waitExit(child, 5_000);
  }
}

export interface ColdStartResult {
  label: string;
  samples: number[];
  stats: Stats;
}

/**
 * Cold starts of several servers interleaved round by round (A, B, C, A, B, C, ...), so that
 * machine noise and OS cache drift affect all of them alike. `warmup` rounds (default 2) are
 * discarded: they fill the OS file cache, which a user's second start also enjoys. `until` and
 * `stop`: see `ColdStartOptions`.
 */
export async function coldStarts(specs: readonly SpawnSpec[], runs: number, options: ColdStartOptions = {}): Promise<ColdStartResult[]> {
  return coldStartCells(
    specs.map((spec) => ({ spec, options })),
    runs,
    options.warmup,
  );
}

/** One column of `coldStartCells`: a server and how it is started and asked (era, `until`, `stop`). */
export interface ColdStartCell {
  spec: SpawnSpec;
  options?: ColdStartOptions;
}

/**
 * `coldStarts` for cells that differ in more than the server (e.g. the same bin opened by a 2025 and
 * a 2026 client): interleaved round by round, `warmup` rounds (default 2) discarded. Each cell's
 * own `options.warmup` is ignored.
 */
export async function coldStartCells(cells: readonly ColdStartCell[], runs: number, warmup = 2): Promise<ColdStartResult[]> {
  const samples = cells.map(() => [] as number[]);
  for (let round = 0; round < warmup + runs; round++) {
    for (const [i, cell] of cells.entries()) {
      const t = await coldStartOnce(cell.spec, cell.options);
      if (round >= warmup) samples[i]!.push(t);
    }
  }
  return cells.map((cell, i) => ({ label: cell.spec.label, samples: samples[i]!, stats: stats(samples[i]!) }));
}

/** A real SDK `Client` connected over stdio to a spawned server. Dispose it (or call `close`) to end the child. */
export interface StdioConnection extends AsyncDisposable {
  client: Client;
  pid: number;
  /** The last ~8 KB the child wrote to stderr. */
  stderr(): string;
  close(): Promise<void>;
}

/** Spawn `spec` and connect a real SDK Client to it over stdio (stderr is piped and drained). */
export async function connectStdio(spec: SpawnSpec, options: { timeoutMs?: number } = {}): Promise<StdioConnection> {
  const transport = new StdioClientTransport({
    command: spec.command ?? process.execPath,
    args: spec.args,
    env: childEnv(spec),
    ...(spec.cwd ? { cwd: spec.cwd } : {}),
    stderr: 'pipe',
  });
  let tail = '';
  transport.stderr?.on('data', (d: Buffer) => {
    tail = (tail + d.toString()).slice(-8192);
  });
  const client = new Client({ name: 'mcpkit-bench', version: '0.0.0' });
  await client.connect(transport, { timeout: options.timeoutMs ?? 15_000 });
  const pid = transport.pid;
  if (pid === null) throw new Error(`${spec.label}: no child pid after connect`);
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await client.close();
  };
  return { client, pid, stderr: () => tail, close, [Symbol.asyncDispose]: close };
}

/**
 * `tools/call` that throws when the result is an error (`isError`), with the start of its text, so a
 * suite never times error answers. `timeoutMs` is the SDK request timeout (default 60 s).
 */
export async function callOk(conn: StdioConnection, name: string, args: Record<string, unknown>, options: { timeoutMs?: number } = {}) {
  const res = await conn.client.callTool({ name, arguments: args }, undefined, { timeout: options.timeoutMs ?? 60_000 });
  if (res.isError) throw new Error(`${name} failed: ${JSON.stringify(res.content).slice(0, 300)}`);
  return res;
}

// ---------------------------------------------------------------------------------------------
// Load
// ---------------------------------------------------------------------------------------------

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
