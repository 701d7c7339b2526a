// check-mcpb's stdio JSON-RPC session with a spawned bundle, and the calls it makes through it.
import { spawn } from 'node:child_process';
import { onJsonLines, tail } from '../lib.mjs';

const REQUEST_TIMEOUT_MS = 20_000;

/** A stdio JSON-RPC session with a spawned bundle: request(), notify(), close() → exit code, stderr(). */
export function startSession(command, args, { env, cwd }) {
  const child = spawn(command, args, { cwd, env, stdio: ['pipe', 'pipe', 'pipe'], detached: process.platform !== 'win32' });
  const pending = new Map();
  const problems = [];
  let stderr = '';
  let nextId = 1;
  let exited;
  const exit = new Promise((resolve) => {
    child.once('exit', (code, signal) => {
      exited = { code, signal };
      for (const { reject } of pending.values()) reject(new Error(`server exited (${signal ?? code}); stderr: ${stderrTail(stderr)}`));
      pending.clear();
      resolve(exited);
    });
  });
  child.once('error', (error) => problems.push(`spawn failed: ${error.message}`));
  child.stderr.on('data', (c) => {
    stderr += c;
  });
  onJsonLines(
    child.stdout,
    (msg) => {
      const waiter = pending.get(msg.id);
      if (waiter && (msg.result !== undefined || msg.error !== undefined)) {
        pending.delete(msg.id);
        if (msg.error) waiter.reject(new Error(`${waiter.method}: JSON-RPC error ${msg.error.code} ${msg.error.message}`));
        else waiter.resolve(msg.result);
      }
    },
    (line) => problems.push(`non-JSON line on stdout: ${line.slice(0, 200)}`),
  );
  const kill = () => {
    try {
      if (process.platform !== 'win32') process.kill(-child.pid, 'SIGKILL');
      else child.kill('SIGKILL');
    } catch {}
  };
  const send = (msg) => child.stdin.write(`${JSON.stringify(msg)}\n`);
  return {
    problems,
    stderr: () => stderr,
    exited: () => exited,
    kill,
    notify: (method, params) => send({ jsonrpc: '2.0', method, ...(params ? { params } : {}) }),
    request(method, params) {
      if (exited) return Promise.reject(new Error(`server exited (${exited.signal ?? exited.code}); stderr: ${stderrTail(stderr)}`));
      const id = nextId++;
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          pending.delete(id);
          reject(new Error(`no answer to ${method} within ${REQUEST_TIMEOUT_MS / 1000} s; stderr: ${stderrTail(stderr)}`));
        }, REQUEST_TIMEOUT_MS);
        pending.set(id, {
          method,
          resolve: (v) => {
            clearTimeout(timer);
            resolve(v);
          },
          reject: (e) => {
            clearTimeout(timer);
            reject(e);
          },
        });
        send({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) });
      });
    },
    /** Closes stdin and waits for the exit (killed after 5 s). */
    async close() {
      child.stdin.end();
      const timer = setTimeout(kill, 5000);
      const result = await exit;
      clearTimeout(timer);
      return result;
    },
  };
}

/** The last lines of a server's stderr, on one line. */
export const stderrTail = (text, lines = 3) =>
  tail(text, lines)
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .join(' | ') || '(empty)';

const textOf = (result) => (result?.content ?? []).map((c) => (c.type === 'text' ? c.text : '')).join('\n');

/** Calls a tool; returns { isError, text }. */
export async function callTool(session, name, args) {
  const result = await session.request('tools/call', { name, arguments: args });
  return { isError: result.isError === true, text: textOf(result) };
}

export async function listTools(session) {
  const tools = [];
  let cursor;
  do {
    const page = await session.request('tools/list', cursor ? { cursor } : {});
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor);
  return tools.map((t) => ({ name: t.name, description: t.description ?? '' }));
}

/** Differences between the manifest's tools and the server's, as short phrases. */
export function toolDiff(declared, live) {
  const byName = new Map(declared.map((t) => [t.name, t]));
  const liveNames = new Set(live.map((t) => t.name));
  const problems = [];
  const missing = live.filter((t) => !byName.has(t.name)).map((t) => t.name);
  const extra = declared.filter((t) => !liveNames.has(t.name)).map((t) => t.name);
  if (missing.length) problems.push(`served but not in the manifest: ${missing.join(', ')}`);
  if (extra.length) problems.push(`in the manifest but not served: ${extra.join(', ')}`);
  const changed = live.filter((t) => byName.has(t.name) && (byName.get(t.name).description ?? '') !== t.description).map((t) => t.name);
  if (changed.length) problems.push(`description differs: ${changed.join(', ')}`);
  return problems;
}
