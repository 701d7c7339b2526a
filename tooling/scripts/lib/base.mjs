// The basics every check script uses: the repository root, pnpm, a quiet environment, running commands.
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

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

/** Last `lines` lines of a command's output, without npm's config warnings. */
export function tail(text, lines = 60) {
  return text
    .split('\n')
    .filter((l) => !/npm warn (Unknown (user|env) config|EBADENGINE)/.test(l))
    .slice(-lines)
    .join('\n');
}

/** Removes a script's temp dir, or keeps it for inspection (`--keep`) and says where. */
export function removeTemp(tag, dir, keep) {
  if (keep) console.log(`[${tag}] kept ${dir}`);
  else rmSync(dir, { recursive: true, force: true });
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
