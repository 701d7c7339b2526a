// Child processes the checks talk to: long-running servers, stdio smoke tests, Node 22 tools, free ports.
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { quietEnv, root, run, tail } from './base.mjs';

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
