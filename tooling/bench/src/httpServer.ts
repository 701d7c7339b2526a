/**
 * A server bin started with `--transport http --port 0` for the `http` suite: its endpoint (read
 * from the "listening on" line), its session log (opened/closed lines at `--log-level debug`) and
 * a heap probe (`heapProbe.mjs`: full GC, then `process.memoryUsage()`), all from its stderr.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { benchDir, childEnv, peakRss, type Rss, withTimeout } from './harness.js';

export interface HeapProbe {
  rss: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
  arrayBuffers: number;
  /** Whether a full GC ran first (the server was started with --expose-gc). */
  gc: boolean;
}

export interface HttpServerProcess extends AsyncDisposable {
  endpoint: string;
  pid: number;
  /** Sessions the server logged as opened and as closed so far. */
  sessions(): { opened: number; closed: number; reclaimed: number; refused: number };
  /** Full GC in the server, then its memory usage. */
  probe(): Promise<HeapProbe>;
  rss(): Rss | undefined;
  /** Resolves once every opened session is closed, or after `timeoutMs` (then returns false). */
  drained(timeoutMs: number): Promise<boolean>;
  stop(): Promise<void>;
}

/** The Streamable HTTP floor (`httpFloor.mjs`: bare node:http answering the floor's JSON), startable with `startHttpServer`. */
export const httpFloorBin = join(benchDir, 'src', 'httpFloor.mjs');

export interface StartHttpOptions {
  /**
   * `--log-level` of the server (default `debug`, which the session counts need). The "listening
   * on" line is logged at `info`, so nothing quieter works here.
   */
  logLevel?: 'debug' | 'info';
}

/** Starts `bin` over Streamable HTTP on 127.0.0.1 and a free port, with the heap probe preloaded. */
export async function startHttpServer(
  bin: string,
  args: string[],
  env: Record<string, string> = {},
  options: StartHttpOptions = {},
): Promise<HttpServerProcess> {
  const probeFile = pathToFileURL(join(benchDir, 'src', 'heapProbe.mjs')).href;
  const logLevel = options.logLevel ?? 'debug';
  const nodeArgs = ['--expose-gc', '--import', probeFile, bin, '--transport', 'http', '--port', '0', '--log-level', logLevel, ...args];
  const child = spawn(process.execPath, nodeArgs, {
    env: childEnv({ label: 'http', args: [], env }),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const counts = { opened: 0, closed: 0, reclaimed: 0, refused: 0 };
  const probes: HeapProbe[] = [];
  const waiters = new Set<() => void>();
  let endpoint: string | undefined;
  let rest = '';
  let tail = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    const lines = (rest + chunk).split('\n');
    rest = lines.pop() ?? '';
    for (const line of lines) {
      if (/ session \S+ opened$/.test(line)) counts.opened++;
      else if (/ session \S+ closed$/.test(line)) counts.closed++;
      else if (/ session \S+ reclaimed /.test(line)) counts.reclaimed++;
      else if (/refused a new session/.test(line)) counts.refused++;
      else if (line.startsWith('heap-probe ')) probes.push(JSON.parse(line.slice('heap-probe '.length)) as HeapProbe);
      else {
        endpoint ??= /listening on (http:\/\/\S+)/.exec(line)?.[1];
        tail = `${tail}${line}\n`.slice(-2000);
      }
    }
    for (const wake of waiters) wake();
  });
  child.once('exit', () => {
    for (const wake of waiters) wake();
  });
  const until = (ready: () => boolean, timeoutMs: number, what: string) => {
    let check = () => {};
    return withTimeout(
      new Promise<void>((resolve, reject) => {
        check = () => {
          if (ready()) resolve();
          else if (child.exitCode !== null) reject(new Error(`the server exited (${child.exitCode}): ${tail}`));
        };
        waiters.add(check);
        check();
      }),
      timeoutMs,
      what,
    ).finally(() => waiters.delete(check));
  };
  await until(() => endpoint !== undefined, 15_000, 'the HTTP server start');
  const pid = child.pid ?? 0;
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    await withTimeout(exited, 10_000, 'the HTTP server shutdown').catch(() => child.kill('SIGKILL'));
  };
  return {
    endpoint: endpoint as string,
    pid,
    sessions: () => ({ ...counts }),
    async probe() {
      const before = probes.length;
      child.kill('SIGUSR2');
      await until(() => probes.length > before, 30_000, 'the heap probe');
      return probes[before] as HeapProbe;
    },
    rss: () => peakRss(pid),
    drained: (timeoutMs) =>
      until(() => counts.opened === counts.closed, timeoutMs, 'closing every session').then(
        () => true,
        () => false,
      ),
    stop,
    [Symbol.asyncDispose]: stop,
  };
}

export interface HttpClient {
  client: Client;
  transport: StreamableHTTPClientTransport;
}

/** The real SDK client over Streamable HTTP (it opens its GET stream after initialize, as clients do). */
export async function connectHttp(endpoint: string, name: string): Promise<HttpClient> {
  const client = new Client({ name, version: '0.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(endpoint));
  await withTimeout(client.connect(transport), 15_000, `${name} connect`);
  return { client, transport };
}
