#!/usr/bin/env node
// Every server behind a load balancer, against the BUILT servers (run the build first):
//
//   node tooling/balancer/check-balancer.mjs [server ...] [--keep]     (pnpm check:balancer; default: every server)
//
// For each server: 3 replicas of its bin over Streamable HTTP on loopback (sharing what the server's "Host it"
// says they must share: memory's file store, git's repository, everything's --request-state-key), and HAProxy in
// front of them on the documented config, docs/hosting/haproxy.cfg, unchanged (its variables set to the ports).
// Through it, the official SDK clients: v2 in `legacy` (2025-11-25), `auto` and pinned `2026-07-28` mode, and v1
// (2025) — initialize, tools/list and calls that touch state (servers.mjs). HAProxy's request log then shows that
// every request of a 2025 session reached the one replica that minted its id, and that 2026-07-28 requests went
// round robin over all 3. The negative control: the same config without its `stick` lines, where a 2025 client
// must fail with 404 (its next request after `initialize` reaches a replica that never saw the session), so the
// check proves the stick table is what makes it work. HAProxy is installed from Debian when missing and we are
// root; without it, the check is skipped with a line, or fails under CI. Network: loopback only.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { binOf, createSteps, freePortNumber, mapLimit, quietEnv, removeTemp, selectServersOrExit, startProcess } from '../scripts/lib.mjs';
import { CLIENTS, connectClient } from './clients.mjs';
import { documentedConfig, findHaproxy, startHaproxy, withoutStickiness } from './haproxy.mjs';
import { DEFAULT_SETTINGS, SERVERS } from './servers.mjs';

const TAG = 'balancer';
const { values, positionals } = parseArgs({ allowPositionals: true, options: { keep: { type: 'boolean', default: false } } });
const selection = selectServersOrExit(TAG, positionals);
let haproxy;
try {
  haproxy = findHaproxy((line) => console.log(`[${TAG}] ${line}`));
} catch (error) {
  console.log(`[${TAG}] ✗ haproxy: ${error.message}`);
  process.exit(1);
}
if (haproxy.skip) {
  console.log(`[${TAG}] - skipped: ${haproxy.skip}`);
  process.exit(0);
}
const tmp = mkdtempSync(join(tmpdir(), 'mcpkit-balancer-'));
const steps = createSteps(TAG);

/** `count` distinct free loopback ports. */
async function freePorts(count) {
  const ports = new Set();
  while (ports.size < count) ports.add(await freePortNumber());
  return [...ports];
}

/** Resolves to the first `n` requests HAProxy logged, once it has logged them (a request is logged when it ends). */
async function logged(lb, n) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const requests = lb.requests();
    if (requests.length >= n) return requests.slice(0, n);
    if (Date.now() > deadline)
      throw new Error(`HAProxy logged ${requests.length} requests, the clients sent ${n}:\n${lb.output().slice(-3000)}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const count = (items) => [...new Set(items)].sort().map((s) => `${s}×${items.filter((i) => i === s).length}`);

/** Checks one client run's requests (`lines`, from HAProxy's log): 2025 on one replica, 2026 spread over all 3. */
function checkRouting(run, era, lines, sessionId) {
  const servers = lines.map((l) => l.server);
  const failed = lines.filter((l) => l.status >= 400);
  if (failed.length > 0)
    throw new Error(`${run}: HAProxy logged ${failed.map((l) => `${l.status} ${l.method} from ${l.server}`).join(', ')}`);
  if (era === '2025') {
    if (!sessionId) throw new Error(`${run}: the client has no session id after connecting`);
    const foreign = lines.filter((l) => (l.session ?? l.minted) !== sessionId);
    if (foreign.length > 0) throw new Error(`${run}: requests outside the session: ${JSON.stringify(foreign)}`);
    if (lines.length < 3 || new Set(servers).size !== 1)
      throw new Error(`${run}: the session's ${lines.length} requests went to ${count(servers)}`);
    return `${run} (2025): one session, ${lines.length} requests, all on ${servers[0]}`;
  }
  if (lines.some((l) => l.session || l.minted))
    throw new Error(`${run}: a 2026-07-28 request carried or got a session id: ${JSON.stringify(lines)}`);
  // Round robin: consecutive requests on consecutive replicas, so n requests reach min(n, 3) of them.
  if (lines.length < 2 || new Set(servers).size !== Math.min(3, lines.length)) {
    throw new Error(`${run}: ${lines.length} requests went to ${count(servers)}, not round robin over 3`);
  }
  return `${run} (2026-07-28): ${lines.length} requests, ${count(servers).join(' ')}`;
}

/** Every client through the documented config: the clients' calls succeed and the log shows the routing. */
async function stickyRun(server, settings, ctx, lb) {
  const notes = [];
  let seen = 0;
  for (const { id, era } of CLIENTS) {
    const conn = await connectClient(id, lb.url, { elicit: settings.elicit }).catch((error) => {
      throw new Error(`${id} (${era}): connecting: ${error.message}`);
    });
    try {
      const { tools } = await conn.client.listTools();
      if (!Array.isArray(tools) || tools.length === 0) throw new Error(`${id}: tools/list answered no tools`);
      await settings.calls(conn.client, era, ctx, id.replace(/\W+/g, '-'));
    } catch (error) {
      throw new Error(`${id} (${era}): ${error.message}`);
    } finally {
      await conn.close();
    }
    const lines = (await logged(lb, seen + conn.sent())).slice(seen);
    seen += conn.sent();
    notes.push(checkRouting(id, era, lines, conn.sessionId()));
  }
  console.log(notes.map((n) => `[${TAG}]     ${server.dir}: ${n}`).join('\n'));
}

/** The HTTP status an SDK client's error carries: v2's `SdkHttpError` (`data.status`), v1's `StreamableHTTPError` (`code`). */
function httpStatus(error) {
  if (typeof error?.data?.status === 'number') return error.data.status;
  if (typeof error?.code === 'number' && error.code >= 400 && error.code < 600) return error.code;
  return undefined;
}

/** The negative control: without the stick lines each 2025 client fails with 404 once its session crosses replicas. */
async function looseRun(server, lb) {
  let seen = 0;
  for (const id of CLIENTS.filter((c) => c.era === '2025').map((c) => c.id)) {
    let error;
    let sent = 0;
    const conn = await connectClient(id, lb.url).catch((e) => {
      error = e;
      sent = e.sent;
    });
    if (conn) {
      // Connected (a client that does not wait on its notification's answer): the next request must fail.
      try {
        await conn.client.listTools();
      } catch (e) {
        error = e;
      } finally {
        sent = conn.sent();
        await conn.close();
      }
    }
    if (!error)
      throw new Error(`${id}: a 2025 session worked through round robin without the stick table: the negative control proves nothing`);
    if (httpStatus(error) !== 404) throw new Error(`${id}: failed, but not with HTTP 404: ${error.message}`);
    const lines = (await logged(lb, seen + sent)).slice(seen);
    seen += sent;
    const refused = lines.find((l) => l.status === 404 && l.session);
    const minted = refused && lines.find((l) => l.minted === refused.session);
    if (!refused || !minted || minted.server === refused.server) {
      throw new Error(
        `${id}: expected a 404 from a replica other than the one that minted the session; HAProxy logged ${JSON.stringify(lines)}`,
      );
    }
    console.log(
      `[${TAG}]     ${server.dir}: ${id} without stick lines: session minted by ${minted.server}, ${refused.method} with it got 404 from ${refused.server}`,
    );
  }
}

async function checkServer(server) {
  const settings = SERVERS[server.name] ?? DEFAULT_SETTINGS;
  if (settings === DEFAULT_SETTINGS)
    console.log(`[${TAG}] - ${server.dir}: no entry in tooling/balancer/servers.mjs, so no tool calls: initialize and tools/list only`);
  const dir = mkdtempSync(join(tmp, `${server.dir}-`));
  const binPath = join(server.path, binOf(server.manifest)[1]);
  const [sticky, loose, ...replicaPorts] = await freePorts(5);
  const ctx = await settings.setup(dir);
  const replicas = replicaPorts.map((port) =>
    startProcess(
      process.execPath,
      [
        binPath,
        '--transport',
        'http',
        '--host',
        '127.0.0.1',
        '--port',
        String(port),
        '--allowed-host',
        `127.0.0.1:${sticky}`,
        '--allowed-host',
        `127.0.0.1:${loose}`,
        ...ctx.args,
      ],
      {
        cwd: dir,
        env: { ...quietEnv, HOME: dir, XDG_DATA_HOME: join(dir, 'data') },
        ready: (out) => /listening on http:\/\/\S+\/mcp/.test(out),
        timeoutMs: 30_000,
      },
    ),
  );
  const balancers = [];
  try {
    const started = await steps.step(`${server.dir}: 3 replicas started`, () =>
      Promise.all(replicas.map((r) => r.started)).then(() => true),
    );
    if (!started) return;
    await steps.step(
      `${server.dir}: docs/hosting/haproxy.cfg — 2025 sessions stay on the replica that minted them, 2026-07-28 goes round robin`,
      async () => {
        const lb = await startHaproxy(haproxy.path, { dir, name: 'sticky', configText: documentedConfig(), port: sticky, replicaPorts });
        balancers.push(lb);
        await stickyRun(server, settings, ctx, lb);
        return true;
      },
    );
    await steps.step(`${server.dir}: the same config without its stick lines — a 2025 session gets 404`, async () => {
      const lb = await startHaproxy(haproxy.path, {
        dir,
        name: 'round-robin',
        configText: withoutStickiness(documentedConfig()),
        port: loose,
        replicaPorts,
      });
      balancers.push(lb);
      await looseRun(server, lb);
      return true;
    });
  } finally {
    await Promise.all([...balancers, ...replicas].map((p) => p.stop()));
    await ctx.close?.();
  }
}

try {
  await mapLimit(selection.selected, 2, checkServer);
} finally {
  removeTemp(TAG, tmp, values.keep);
}
steps.conclude(`${selection.selected.length} servers behind HAProxy (docs/hosting/haproxy.cfg), 3 replicas each, both protocol eras`);
