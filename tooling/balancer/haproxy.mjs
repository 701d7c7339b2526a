// HAProxy for the balancer check: found (or installed from Debian), started on the documented config
// (docs/hosting/haproxy.cfg, its `${…}` variables set to loopback ports), and its request log read back.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { quietEnv, root, run, startProcess } from '../scripts/lib.mjs';

/** The recipe every server's "Host it" section links to; the check runs this file. */
const CONFIG = join(root, 'docs', 'hosting', 'haproxy.cfg');

/**
 * The path of `haproxy`, installing it from Debian (`apt-get install -y haproxy`) when it is missing and we are
 * root (or have passwordless sudo). Returns `{ skip: reason }` when it is neither there nor installable (a laptop without root); under CI
 * (`process.env.CI`) that is an error instead.
 */
export function findHaproxy(log = () => {}) {
  const found = () => {
    const res = run('sh', ['-c', 'command -v haproxy']);
    return res.status === 0 ? res.stdout.trim() : undefined;
  };
  let path = found();
  // As root, or through passwordless sudo (a GitHub runner); the package list is refreshed only when needed.
  const asRoot = () => (process.getuid?.() === 0 ? [] : run('sudo', ['-n', 'true']).status === 0 ? ['sudo', '-n'] : undefined);
  const prefix = path ? undefined : asRoot();
  if (!path && prefix && existsSync('/usr/bin/apt-get')) {
    const apt = (...args) => {
      const [cmd, ...rest] = [...prefix, 'env', 'DEBIAN_FRONTEND=noninteractive', 'apt-get', ...args];
      return run(cmd, rest, { timeoutMs: 5 * 60_000 });
    };
    log('haproxy is missing: apt-get install -y haproxy');
    let res = apt('install', '-y', 'haproxy');
    if (res.status !== 0 && apt('update').status === 0) res = apt('install', '-y', 'haproxy');
    if (res.status !== 0) throw new Error(`apt-get install -y haproxy failed (exit ${res.status}):\n${res.output.slice(-3000)}`);
    path = found();
  }
  if (path) return { path };
  const reason = 'haproxy is not installed and cannot be (neither root nor passwordless sudo, or no apt-get): install it to run this check';
  if (process.env.CI) throw new Error(reason);
  return { skip: reason };
}

/** The documented config without its `stick` lines: round robin for every request (the negative control). */
export function withoutStickiness(text) {
  const kept = text.split('\n').filter((line) => !/^\s*stick(-table)?\s/.test(line));
  if (kept.length === text.split('\n').length) throw new Error(`${CONFIG} has no stick lines to remove`);
  return kept.join('\n');
}

/** The variables the config reads: the frontend's address and the 3 replicas'. */
function configEnv(bind, replicas) {
  if (replicas.length !== 3) throw new Error(`the config names 3 replicas, got ${replicas.length}`);
  return { MCP_LB_BIND: bind, ...Object.fromEntries(replicas.map((address, i) => [`MCP_REPLICA_${i + 1}`, address])) };
}

/**
 * Validates (`haproxy -c`) and starts HAProxy in the foreground on `configText` (written to `dir`), the frontend on
 * 127.0.0.1:`port`, the backends `replicaPorts`. Resolves once it listens, to
 * `{ url, requests(), stop() }`: `requests()` is every request logged so far, in order, as
 * `{ server, status, method, path, session, minted, mcpMethod }`.
 */
export async function startHaproxy(haproxyPath, { dir, name, configText, port, replicaPorts }) {
  const file = join(dir, `${name}.cfg`);
  writeFileSync(file, configText);
  const env = {
    ...quietEnv,
    ...configEnv(
      `127.0.0.1:${port}`,
      replicaPorts.map((p) => `127.0.0.1:${p}`),
    ),
  };
  const checked = run(haproxyPath, ['-c', '-f', file], { env });
  if (checked.status !== 0) throw new Error(`haproxy -c -f ${file} refused the config:\n${checked.output}`);
  // -db: foreground, no daemon, the log on our stdout pipe; -V prints its start (the polling mechanism). Servers
  // start UP (the replicas are up already); HAProxy is ready once its frontend accepts connections.
  const proc = startProcess(haproxyPath, ['-db', '-V', '-f', file], {
    env,
    ready: (out) => /as the polling mechanism/.test(out),
    timeoutMs: 10_000,
  });
  await proc.started;
  try {
    await waitForPort(port, 10_000, () => proc.child.exitCode !== null);
  } catch (error) {
    await proc.stop();
    throw new Error(`${error.message}; haproxy said:\n${proc.output()}`);
  }
  const requests = () => parseLog(proc.output());
  return { url: `http://127.0.0.1:${port}/mcp`, host: `127.0.0.1:${port}`, requests, output: proc.output, stop: proc.stop };
}

/** The request lines of HAProxy's log (the config's `log-format`, lines starting `mcp `). */
function parseLog(text) {
  const out = [];
  for (const line of text.split('\n')) {
    const m = /^mcp (\S+)\/(\S+) (\S+) (\S+) (\S+) session=(\S*) minted=(\S*) method=(\S*)/.exec(line.trim());
    if (!m) continue;
    const value = (v) => (v === '-' || v === '' ? undefined : v);
    out.push({
      server: m[2],
      status: Number(m[3]),
      method: m[4],
      path: m[5],
      session: value(m[6]),
      minted: value(m[7]),
      mcpMethod: value(m[8]),
    });
  }
  return out;
}

/** The documented config's text. */
export function documentedConfig() {
  return readFileSync(CONFIG, 'utf8');
}

/** Resolves once 127.0.0.1:`port` accepts a connection; rejects after `timeoutMs`, or when `gone()` holds. */
async function waitForPort(port, timeoutMs, gone = () => false) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const open = await new Promise((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    if (gone()) throw new Error(`the process serving port ${port} exited`);
    if (Date.now() > deadline) throw new Error(`nothing listens on 127.0.0.1:${port} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
