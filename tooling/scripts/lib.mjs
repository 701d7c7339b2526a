// Helpers shared by the check scripts (plain Node, no dependencies).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
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

/**
 * `selectServers` for a script's command line: an unknown name exits 2 with the reason; folders that are
 * not servers yet are listed as skipped.
 */
export function selectServersOrExit(tag, args) {
  let selection;
  try {
    selection = selectServers(args);
  } catch (error) {
    console.error(`[${tag}] ${error.message}`);
    process.exit(2);
  }
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
