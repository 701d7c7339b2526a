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
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { type Cell, type Stats, stats } from './stats.js';

export {
  cpuTimeMs,
  interleavedLoad,
  type LoadFigures,
  latency,
  peakRss,
  type Rss,
  throughput,
  withTimeout,
} from './load.js';
export { type Cell, mib, ms, ratio, type Stats, stats, table, versus } from './stats.js';

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
