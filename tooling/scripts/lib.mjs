// Helpers shared by the check scripts (plain Node, no dependencies).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** pnpm from the npm registry, as everywhere in this repo (corepack on Node 20 fails its signature check). */
export const PNPM = ['npx', '-y', 'pnpm@10.34.8'];

/** Quiet npm: no funding, audit or update notices in the logs. */
export const quietEnv = {
  ...process.env,
  npm_config_fund: 'false',
  npm_config_audit: 'false',
  npm_config_update_notifier: 'false',
  TURBO_TELEMETRY_DISABLED: '1',
  DO_NOT_TRACK: '1',
  FORCE_COLOR: '0',
  NO_COLOR: '1',
};

/**
 * Runs a command to completion and returns { status, stdout, stderr, output, ms }. Output is captured,
 * not streamed, so a passing step stays one line in the log; `describe` prints it when a step fails.
 */
export function run(cmd, args, { cwd = root, env = quietEnv, input, timeoutMs = 10 * 60_000 } = {}) {
  const started = Date.now();
  const res = spawnSync(cmd, args, { cwd, env, input, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, timeout: timeoutMs });
  const stdout = res.stdout ?? '';
  const stderr = res.stderr ?? '';
  return {
    status: res.status ?? (res.error ? 127 : 1),
    signal: res.signal,
    error: res.error,
    stdout,
    stderr,
    output: `${stdout}${stderr}`,
    ms: Date.now() - started,
  };
}

/**
 * `run` without blocking: resolves to the same { status, stdout, stderr, output, ms } once the command
 * ends, so several commands (npm installs) can run at once.
 */
export function runAsync(cmd, args, { cwd = root, env = quietEnv, timeoutMs = 10 * 60_000 } = {}) {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    const done = (status, signal, error) => {
      clearTimeout(timer);
      resolve({ status, signal, error, stdout, stderr, output: `${stdout}${stderr}`, ms: Date.now() - started });
    };
    child.once('error', (error) => done(127, null, error));
    child.once('close', (code, signal) => done(code ?? 1, signal, undefined));
  });
}

/** Runs `fn` over `items` with at most `limit` calls in flight; resolves to the results in order. */
export async function mapLimit(items, limit, fn) {
  const results = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/**
 * What a folder holds on disk as npm installed it: the sum of its regular files' sizes (apparent size,
 * symlinks not followed, directory entries not counted) and, for a node_modules folder, the same per
 * top-level package (`name` or `@scope/name`, its nested node_modules included).
 */
export function folderSize(dir) {
  let total = 0;
  const walk = (d) => {
    let entries;
    try {
      entries = readdirSync(d, { withFileTypes: true });
    } catch {
      return 0;
    }
    let sum = 0;
    for (const e of entries) {
      const p = join(d, e.name);
      if (e.isDirectory()) sum += walk(p);
      else if (e.isFile()) sum += statSync(p).size;
    }
    return sum;
  };
  const packages = new Map();
  for (const e of existsSync(dir) ? readdirSync(dir, { withFileTypes: true }) : []) {
    const p = join(dir, e.name);
    if (!e.isDirectory()) {
      if (e.isFile()) total += statSync(p).size;
      continue;
    }
    if (e.name.startsWith('@')) {
      for (const s of readdirSync(p, { withFileTypes: true })) {
        const size = s.isDirectory() ? walk(join(p, s.name)) : s.isFile() ? statSync(join(p, s.name)).size : 0;
        if (s.isDirectory()) packages.set(`${e.name}/${s.name}`, size);
        total += size;
      }
    } else {
      const size = walk(p);
      if (!e.name.startsWith('.')) packages.set(e.name, size);
      total += size;
    }
  }
  return { total, packages };
}

/** A byte count for people: 930 KB, 14.2 MB (1 MB = 1,000,000 bytes, as npm and du --si print them). */
export function formatSize(bytes) {
  if (bytes >= 1e6) return `${(bytes / 1e6).toFixed(1)} MB`;
  if (bytes >= 1e3) return `${Math.round(bytes / 1e3)} KB`;
  return `${bytes} B`;
}

/** Last `lines` lines of a command's output, without npm's config warnings. */
export function tail(text, lines = 60) {
  return text
    .split('\n')
    .filter((l) => !/npm warn (Unknown (user|env) config|EBADENGINE)/.test(l))
    .slice(-lines)
    .join('\n');
}

/**
 * A step runner: prints `✓ name (1.2s)` or `✗ name` plus the command's output, and counts failures.
 * `conclude(okText)` ends the script: the failures and exit 1, or `[tag] OK in Ns: okText`.
 */
export function createSteps(tag) {
  const started = Date.now();
  const failures = [];
  return {
    failures,
    conclude(okText) {
      const secs = ((Date.now() - started) / 1000).toFixed(0);
      if (failures.length > 0) {
        console.log(`[${tag}] FAILED in ${secs}s:\n${failures.map((f) => `  - ${f}`).join('\n')}`);
        process.exit(1);
      }
      console.log(`[${tag}] OK in ${secs}s: ${okText}`);
    },
    /** Runs `fn` (sync or async); it returns a run() result, `true`, or throws / returns a string reason. */
    async step(name, fn) {
      const started = Date.now();
      let reason;
      let output = '';
      try {
        const res = await fn();
        if (res && typeof res === 'object' && 'status' in res) {
          if (res.status !== 0) {
            reason = `exit ${res.status}${res.signal ? ` (${res.signal})` : ''}${res.error ? `: ${res.error.message}` : ''}`;
            output = res.output;
          }
        } else if (typeof res === 'string') reason = res;
      } catch (error) {
        reason = error instanceof Error ? error.message : String(error);
      }
      const secs = ((Date.now() - started) / 1000).toFixed(1);
      if (reason === undefined) {
        console.log(`[${tag}] ✓ ${name} (${secs}s)`);
        return true;
      }
      console.log(`[${tag}] ✗ ${name} (${secs}s): ${reason}`);
      if (output) console.log(tail(output).replace(/^/gm, `[${tag}]   `));
      failures.push(`${name}: ${reason}`);
      return false;
    },
  };
}

/**
 * Server packages of a workspace: `packages/server-*` with a package.json. `ready` is false for a
 * folder that is not a server yet (no src/index.ts), so callers can skip it with a note.
 */
export function serverPackages(base = root) {
  const dir = join(base, 'packages');
  return readdirSync(dir)
    .filter((entry) => entry.startsWith('server-') && existsSync(join(dir, entry, 'package.json')))
    .sort()
    .map((entry) => {
      const path = join(dir, entry);
      const manifest = JSON.parse(readFileSync(join(path, 'package.json'), 'utf8'));
      return { dir: entry, path, manifest, name: manifest.name, ready: existsSync(join(path, 'src', 'index.ts')) };
    });
}

/** Every workspace package under packages/, by name. */
export function workspacePackages(base = root) {
  const dir = join(base, 'packages');
  const byName = new Map();
  for (const entry of readdirSync(dir)) {
    const file = join(dir, entry, 'package.json');
    if (!existsSync(file)) continue;
    const manifest = JSON.parse(readFileSync(file, 'utf8'));
    byName.set(manifest.name, { dir: entry, path: join(dir, entry), manifest });
  }
  return byName;
}

/**
 * Calls `onMessage(msg, line)` for every JSON line a stdio server writes on `stream` (blank lines skipped),
 * and `onBadLine(line)` for a line that is not JSON.
 */
export function onJsonLines(stream, onMessage, onBadLine) {
  let buffer = '';
  stream.on('data', (chunk) => {
    buffer += chunk;
    let nl = buffer.indexOf('\n');
    while (nl >= 0) {
      const line = buffer.slice(0, nl).trim();
      buffer = buffer.slice(nl + 1);
      nl = buffer.indexOf('\n');
      if (!line) continue;
      let msg;
      try {
        msg = JSON.parse(line);
      } catch {
        onBadLine(line);
        continue;
      }
      onMessage(msg, line);
    }
  });
}

/** The dependency fields that are installed with a package (what a workspace: range there brings along). */
export const RUNTIME_DEP_FIELDS = ['dependencies', 'peerDependencies', 'optionalDependencies'];

/**
 * The named packages plus every workspace package they reach through `workspace:` ranges in their runtime
 * dependency fields, transitively (`workspace` is `workspacePackages()`).
 */
export function workspaceClosure(names, workspace) {
  const seen = new Map();
  const visit = (name) => {
    if (seen.has(name)) return;
    const pkg = workspace.get(name);
    if (!pkg) throw new Error(`${name} is not a workspace package`);
    seen.set(name, pkg);
    for (const field of RUNTIME_DEP_FIELDS) {
      for (const [dep, range] of Object.entries(pkg.manifest[field] ?? {})) if (String(range).startsWith('workspace:')) visit(dep);
    }
  };
  for (const n of names) visit(n);
  return [...seen.values()];
}

/**
 * Picks server packages from CLI arguments (`server-memory`, `memory`, `packages/server-memory` or
 * `@mcpkit/server-memory`); with none, every ready one. Unknown names throw.
 */
export function selectServers(args, base = root) {
  const all = serverPackages(base);
  if (args.length === 0) return { selected: all.filter((p) => p.ready), skipped: all.filter((p) => !p.ready) };
  const selected = args.map((arg) => {
    const key = arg.replace(/\/$/, '').replace(/^packages\//, '');
    const found = all.find((p) => p.dir === key || p.name === key || p.dir === `server-${key}`);
    if (!found) throw new Error(`no server package matches "${arg}" (have: ${all.map((p) => p.dir).join(', ')})`);
    return found;
  });
  return { selected, skipped: [] };
}

/** `select()`, or, when it throws (a bad command line), its message on stderr and exit code 2. */
export function orExit(tag, select) {
  try {
    return select();
  } catch (error) {
    console.error(`[${tag}] ${error.message}`);
    process.exit(2);
  }
}

/**
 * `selectServers` for a script's command line: an unknown name exits 2 with the reason; folders that are
 * not servers yet are listed as skipped.
 */
export function selectServersOrExit(tag, args) {
  const selection = orExit(tag, () => selectServers(args));
  for (const s of selection.skipped) console.log(`[${tag}] - ${s.dir}: skipped, no src/index.ts yet (not a server package)`);
  return selection;
}

/** Removes a script's temp dir, or keeps it for inspection (`--keep`) and says where. */
export function removeTemp(tag, dir, keep) {
  if (keep) console.log(`[${tag}] kept ${dir}`);
  else rmSync(dir, { recursive: true, force: true });
}

/** The single bin of a server package: [binName, relativePath]. */
export function binOf(manifest) {
  const bin = manifest.bin;
  if (typeof bin === 'string') return [manifest.name.replace(/^@[^/]+\//, ''), bin];
  const entries = Object.entries(bin ?? {});
  if (entries.length === 0) throw new Error(`${manifest.name} declares no bin`);
  return entries[0];
}

/** Spawns a long-running process; resolves once `ready(text)` holds for its stderr+stdout, or rejects on exit/timeout. */
export function startProcess(cmd, args, { cwd = root, env = quietEnv, ready, timeoutMs = 20_000 } = {}) {
  const child = spawn(cmd, args, { cwd, env, stdio: ['pipe', 'pipe', 'pipe'], detached: process.platform !== 'win32' });
  let out = '';
  const onData = (chunk) => {
    out += chunk.toString('utf8');
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  const stop = () =>
    new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      const kill = (signal) => {
        try {
          // The whole group: npx wrappers leave the real server as a grandchild.
          if (child.pid && process.platform !== 'win32') process.kill(-child.pid, signal);
          else child.kill(signal);
        } catch {}
      };
      const timer = setTimeout(() => kill('SIGKILL'), 3000);
      child.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
      kill('SIGTERM');
    });
  const started = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not ready after ${timeoutMs} ms; output:\n${out}`)), timeoutMs);
    const check = () => {
      if (ready(out)) {
        clearTimeout(timer);
        child.stdout.off('data', check);
        child.stderr.off('data', check);
        resolve();
      }
    };
    child.stdout.on('data', check);
    child.stderr.on('data', check);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`exited (${signal ?? code}) before it was ready; output:\n${out}`));
    });
  });
  return { child, started, stop, output: () => out };
}

/** npm's Node 22 package, for tools that need Node 22 while CI runs Node 20. */
export const NODE22 = 'node@22';

/**
 * Installs `spec` with node@22 through npx (cached after the first run), in `cwd`; returns the paths of that node
 * and of the package's `bin`, and the Node version. Throws with npx's output if either is missing.
 */
export function resolveNode22Tool(spec, bin, cwd) {
  const res = run('npx', ['-y', '-p', NODE22, '-p', spec, '-c', `command -v node && command -v ${bin} && node --version`], {
    cwd,
    timeoutMs: 5 * 60_000,
  });
  const [node, binPath, version] = res.stdout.trim().split('\n');
  if (res.status !== 0 || !binPath || !version?.startsWith('v22.')) {
    throw new Error(`could not install ${spec} with ${NODE22} through npx:\n${tail(res.output, 30)}`);
  }
  return { node, bin: binPath, nodeVersion: version };
}

/** The first file called `name` under `dir` (depth first), or undefined. */
export function findFile(dir, name) {
  for (const entry of readdirSync(dir)) {
    const p = join(dir, entry);
    if (statSync(p).isDirectory()) {
      const found = findFile(p, name);
      if (found) return found;
    } else if (entry === name) return p;
  }
  return undefined;
}

/**
 * Starts `command` (e.g. `npx --no-install <bin>`) in `project` and sends initialize + tools/list over its stdin;
 * expects serverInfo with `expectedVersion`, at least one tool, only JSON-RPC on stdout, and exit 0 once stdin
 * closes. Resolves to a list of problems (empty when all held).
 */
export function smoke(project, command, expectedVersion, { env = quietEnv, timeoutMs = 30_000 } = {}) {
  return new Promise((resolve) => {
    const problems = [];
    // Its own process group, so a timeout kills the server too and not only the npx wrapper (and its `sh -c`).
    const child = spawn(command[0], command.slice(1), { cwd: project, env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    const killGroup = () => {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {}
    };
    let stdout = '';
    let stderr = '';
    let initialized = false;
    let listed = false;
    let finished = false;
    const finish = (problem) => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      if (problem) problems.push(problem);
      resolve(problems);
    };
    const timer = setTimeout(() => {
      killGroup();
      const what = !initialized ? 'no answer to initialize' : !listed ? 'no answer to tools/list' : 'still running after stdin closed';
      finish(`${what} within ${timeoutMs / 1000} s\n  stdout: ${stdout.slice(0, 2000)}\n  stderr: ${tail(stderr, 30)}`);
    }, timeoutMs);
    const send = (msg) => child.stdin.write(`${JSON.stringify(msg)}\n`);
    child.stderr.on('data', (c) => {
      stderr += c;
    });
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    onJsonLines(
      child.stdout,
      (msg, line) => {
        if (msg.jsonrpc !== '2.0') problems.push(`wrote a non-JSON-RPC message to stdout: ${line.slice(0, 200)}`);
        if (msg.id === 1) {
          const info = msg.result?.serverInfo;
          if (!info?.name) problems.push(`initialize answered without serverInfo: ${line.slice(0, 500)}`);
          else if (info.version !== expectedVersion) problems.push(`serverInfo.version is ${info.version}, package is ${expectedVersion}`);
          initialized = true;
          send({ jsonrpc: '2.0', method: 'notifications/initialized' });
          send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
        } else if (msg.id === 2) {
          listed = true;
          if (!Array.isArray(msg.result?.tools) || msg.result.tools.length === 0) {
            problems.push(`tools/list answered without tools: ${line.slice(0, 500)}`);
          }
          child.stdin.end(); // a stdio server exits 0 when its client goes away
        }
      },
      (line) => problems.push(`wrote a non-JSON line to stdout: ${line.slice(0, 200)}`),
    );
    child.once('exit', (code, signal) => {
      if (!initialized) return finish(`exited (${signal ?? code}) before answering initialize\n  stderr: ${tail(stderr, 30)}`);
      if (code !== 0) return finish(`exited with ${signal ?? code} after stdin closed, expected 0\n  stderr: ${tail(stderr, 30)}`);
      finish();
    });
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'mcpkit-check', version: '0.0.0' } },
    });
  });
}

/**
 * Servers whose default serverInfo is the reference's, on purpose (a drop-in reports what clients of the
 * reference expect): the version initialize must report instead of the package version.
 */
export const REFERENCE_SERVER_VERSION = {
  '@mcpkit/server-everything': '2.0.0', // the default (current) profile is npm @modelcontextprotocol/server-everything@2026.8.31
};

/** A free TCP port on 127.0.0.1 (bound, read, released). */
export function freePortNumber() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * Every published (not private) workspace package under packages/ and apps/, in folder order:
 * `{ name, version, manifest, path, dir, group, server, readme }` (`server`: a packages/server-* folder).
 */
export function publicPackages(base = root) {
  const out = [];
  for (const group of ['packages', 'apps']) {
    for (const dir of readdirSync(join(base, group)).sort()) {
      const path = join(base, group, dir);
      if (!existsSync(join(path, 'package.json'))) continue;
      const manifest = JSON.parse(readFileSync(join(path, 'package.json'), 'utf8'));
      if (manifest.private) continue;
      const server = group === 'packages' && dir.startsWith('server-');
      out.push({ name: manifest.name, version: manifest.version, manifest, path, dir, group, server, readme: join(path, 'README.md') });
    }
  }
  return out;
}
