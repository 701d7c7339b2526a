// What each server's replicas need to run behind one balancer, and the few calls that show its state survives
// the balancer: per 2025 session (one replica) or across replicas (2026-07-28, round robin).
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { quietEnv, run } from '../scripts/lib.mjs';
import { callText } from './clients.mjs';

const GIT_ENV = {
  ...quietEnv,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 'Balancer',
  GIT_AUTHOR_EMAIL: 'balancer@example.com',
  GIT_COMMITTER_NAME: 'Balancer',
  GIT_COMMITTER_EMAIL: 'balancer@example.com',
};

function expect(condition, message) {
  if (!condition) throw new Error(message);
}

/** A loopback origin serving one page, for fetch: resolves to `{ url, close() }`. */
function startOrigin() {
  const server = createServer((req, res) => {
    if (req.url === '/page') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<html><head><title>Balanced</title></head><body><p>served behind the balancer</p></body></html>');
      return;
    }
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('not found');
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      resolve({
        host: `127.0.0.1:${port}`,
        url: `http://127.0.0.1:${port}/page`,
        close: () => new Promise((r) => server.close(() => r())),
      });
    });
  });
}

/** A server with no entry below: its replicas get no arguments, and the clients make no tool calls. */
export const DEFAULT_SETTINGS = { setup: async () => ({ args: [] }), calls: async () => {} };

/**
 * Per server package (by name): `setup(dir)` resolves to `{ args, close?() }` — the arguments every replica gets
 * (the same shared store, repository or key for all 3) — and `calls(client, era, ctx, tag)` makes the calls that
 * touch state, throwing on a wrong answer. `tag` makes names unique per client run.
 */
export const SERVERS = {
  '@mcpkit/server-memory': {
    // One file store shared by the 3 processes (one machine); across machines, --storage postgres.
    setup: async (dir) => ({ args: ['--memory-path', join(dir, 'memory.jsonl')] }),
    async calls(client, _era, _ctx, tag) {
      const name = `balancer-${tag}`;
      await callText(client, 'create_entities', {
        entities: [{ name, entityType: 'check', observations: ['written through the balancer'] }],
      });
      // In 2026-07-28 this read goes to the next replica: it sees the write through the shared store.
      const text = await callText(client, 'open_nodes', { names: [name] });
      expect(
        text.includes(name) && text.includes('written through the balancer'),
        `open_nodes did not return ${name}: ${text.slice(0, 300)}`,
      );
    },
  },
  '@mcpkit/server-sequential-thinking': {
    setup: async () => ({ args: ['--disable-thought-logging'] }),
    async calls(client, era) {
      const thought = (n) => ({ thought: `step ${n}`, thoughtNumber: n, totalThoughts: 2, nextThoughtNeeded: n < 2 });
      await callText(client, 'sequentialthinking', thought(1));
      const second = JSON.parse(await callText(client, 'sequentialthinking', thought(2)));
      // A 2025 session keeps its history in its replica: both thoughts are there. A 2026-07-28 request has no
      // history beyond itself (the README's "Whose history").
      const want = era === '2025' ? 2 : 1;
      expect(second.thoughtHistoryLength === want, `thoughtHistoryLength is ${second.thoughtHistoryLength}, expected ${want} (${era})`);
    },
  },
  '@mcpkit/server-git': {
    async setup(dir) {
      const repo = join(dir, 'repo');
      mkdirSync(repo, { recursive: true });
      for (const args of [
        ['init', '-q', '-b', 'main'],
        ['add', 'README.md'],
        ['commit', '-q', '-m', 'first'],
      ]) {
        if (args[0] === 'add') writeFileSync(join(repo, 'README.md'), '# balanced\n');
        const res = run('git', args, { cwd: repo, env: GIT_ENV });
        if (res.status !== 0) throw new Error(`git ${args.join(' ')} failed: ${res.stderr}`);
      }
      return { args: ['--repository', repo], repo };
    },
    async calls(client, _era, ctx) {
      const status = await callText(client, 'git_status', { repo_path: ctx.repo });
      expect(status.includes('main'), `git_status does not name the branch: ${status.slice(0, 300)}`);
      const log = await callText(client, 'git_log', { repo_path: ctx.repo, max_count: 1 });
      expect(log.includes('first'), `git_log does not show the commit: ${log.slice(0, 300)}`);
    },
  },
  '@mcpkit/server-everything': {
    // The same --request-state-key on every replica: a 2026-07-28 input-required round may come back to another.
    setup: async () => ({ args: ['--profile', 'current', '--request-state-key', 'balancer-check-key-0123456789abcdef0123456789'] }),
    // The clients answer the elicitation of `trigger-elicitation-request` (declining it).
    elicit: async () => ({ action: 'decline' }),
    async calls(client, era, _ctx, tag) {
      const echo = await callText(client, 'echo', { message: tag });
      expect(echo.includes(tag), `echo answered ${echo.slice(0, 200)}`);
      // A request from the server during a call: in a 2025 session the client's answer comes back with the session
      // id (to the session's replica); in 2026-07-28 the call is sent again with the answer and the sealed
      // requestState, round robin to the next replica, which verifies the seal with the shared key.
      const elicited = await callText(client, 'trigger-elicitation-request', {});
      expect(/declined/i.test(elicited), `trigger-elicitation-request answered ${elicited.slice(0, 200)}`);
      if (era !== '2025') return;
      // Per-session state: the toggle's second call in the session must find the first one's state.
      const first = await callText(client, 'toggle-simulated-logging', {});
      const second = await callText(client, 'toggle-simulated-logging', {});
      expect(
        /started/i.test(first) && /stopped/i.test(second),
        `the toggle did not keep its state in the session: "${first}" then "${second}"`,
      );
    },
  },
  '@mcpkit/server-fetch': {
    async setup() {
      const origin = await startOrigin();
      return { args: ['--allow-host', origin.host], origin, close: origin.close };
    },
    async calls(client, _era, ctx) {
      const text = await callText(client, 'fetch', { url: ctx.origin.url });
      expect(text.includes('served behind the balancer'), `fetch did not return the page: ${text.slice(0, 300)}`);
    },
  },
};
