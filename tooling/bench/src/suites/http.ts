/**
 * protocol-core's Streamable HTTP runner (issue 22), measured through mcp-server-sequential-thinking's
 * built bin with the real SDK client on loopback:
 *
 * - **reclaim**: sequential clients that connect, make one call and `close()` without DELETE (what the
 *   SDK client does), against the defaults (`--max-sessions 100`, `--session-timeout 30m`). Before
 *   reclaiming, client 101 and every one after got 503 for half an hour.
 * - **memory rounds**: rounds of N sessions × M calls at once; half the clients end with DELETE, half
 *   just close and are expired by `--session-timeout 2s`. After each round, once the server logged
 *   every session closed: RSS, and the heap used after a forced full GC (`heapProbe.mjs`). If the heap
 *   keeps growing round after round, something outlives its session.
 */
import { performance } from 'node:perf_hooks';
import { type BenchContext, binPath, mib, type Suite, withTimeout } from '../harness.js';
import { connectHttp, type HeapProbe, type HttpClient, startHttpServer } from '../httpServer.js';

const BIN = () => binPath('@mcpkit/server-sequential-thinking', 'mcp-server-sequential-thinking');
const ENV = { DISABLE_THOUGHT_LOGGING: 'true' };

function think(c: HttpClient, n: number, total: number) {
  return withTimeout(
    c.client.callTool({
      name: 'sequentialthinking',
      arguments: {
        thought: `step ${n} of a plan that is long enough to look like one`,
        thoughtNumber: n,
        totalThoughts: total,
        nextThoughtNeeded: n < total,
      },
    }),
    30_000,
    'tools/call',
  ).then((r) => {
    if (r.isError) throw new Error(`tools/call failed: ${JSON.stringify(r.content)}`);
  });
}

async function reclaim(ctx: BenchContext) {
  const clients = ctx.scale(1000, 200);
  await using server = await startHttpServer(BIN(), [], ENV);
  let refused = 0;
  const t0 = performance.now();
  for (let i = 0; i < clients; i++) {
    try {
      const c = await connectHttp(server.endpoint, `seq-${i}`);
      await think(c, 1, 1);
      await c.client.close();
    } catch {
      refused++;
    }
  }
  const seconds = (performance.now() - t0) / 1000;
  const log = server.sessions();
  ctx.record('reclaim', { clients, refused, seconds, serverLog: log });
  ctx.table({
    title: `reclaim: ${clients} sequential connect-call-close clients, no DELETE, defaults (--max-sessions 100)`,
    headers: ['clients', 'refused', 'reclaimed', 'live at the end', 'seconds', 'clients/s'],
    rows: [[clients, refused, log.reclaimed, log.opened - log.closed, seconds.toFixed(1), (clients / seconds).toFixed(0)]],
    notes: ['reclaimed = sessions whose client left (GET stream dropped, no DELETE) closed to admit a new one'],
  });
  ctx.check('no client refused when clients close without DELETE', refused === 0, `${refused} of ${clients} refused`);
}

async function rounds(ctx: BenchContext) {
  const roundCount = ctx.scale(5, 2);
  const sessions = ctx.scale(100, 20);
  const calls = ctx.scale(100, 20);
  await using server = await startHttpServer(BIN(), ['--session-timeout', '2s'], ENV);
  const rows: (string | number)[][] = [];
  const figures: (HeapProbe & { round: number; seconds: number; live: number; peak: number | undefined })[] = [];
  const report = async (round: number, seconds: number) => {
    const drained = await server.drained(20_000);
    const p = await server.probe();
    const log = server.sessions();
    const live = log.opened - log.closed;
    const peak = server.rss()?.peak;
    figures.push({ ...p, round, seconds, live, peak });
    const row = [
      round === 0 ? 'start' : round,
      live + (drained ? '' : ' (not drained)'),
      mib(p.rss),
      mib(peak),
      mib(p.heapUsed),
      mib(p.heapTotal),
      mib(p.external),
      round === 0 ? '' : seconds.toFixed(1),
    ];
    rows.push(row);
    ctx.print(`  round ${row[0]}: live ${row[1]}, RSS ${row[2]}, heap used after GC ${row[4]} (heap total ${row[5]})`);
  };
  await report(0, 0);
  for (let round = 1; round <= roundCount; round++) {
    const t0 = performance.now();
    const conns = await Promise.all(Array.from({ length: sessions }, (_, i) => connectHttp(server.endpoint, `r${round}-${i}`)));
    await Promise.all(
      conns.map(async (c) => {
        for (let n = 1; n <= calls; n++) await think(c, n, calls);
      }),
    );
    await Promise.all(
      conns.map(async (c, i) => {
        if (i % 2 === 0) await c.transport.terminateSession();
        await c.client.close();
      }),
    );
    await report(round, (performance.now() - t0) / 1000);
  }
  ctx.record('rounds', { sessions, calls, figures });
  ctx.table({
    title: `memory rounds: ${sessions} sessions × ${calls} calls at once, then closed (half DELETE, half idle expiry)`,
    headers: ['round', 'live sessions', 'RSS', 'peak RSS', 'heap used after GC', 'heap total', 'external', 'seconds'],
    rows,
    notes: [
      'measured once the server logged every session closed; heap = process.memoryUsage().heapUsed after gc() twice (--expose-gc)',
      'the bin: mcp-server-sequential-thinking --transport http --session-timeout 2s, DISABLE_THOUGHT_LOGGING=true',
    ],
  });
  const first = figures[1];
  const last = figures[figures.length - 1];
  if (first && last && last !== first) {
    const growth = last.heapUsed - first.heapUsed;
    ctx.check(
      'heap after GC does not grow round over round (≤ 2 MiB from round 1 to the last)',
      growth <= 2 * 1024 * 1024,
      `${mib(first.heapUsed)} after round 1, ${mib(last.heapUsed)} after round ${last.round}`,
    );
  }
}

const suite: Suite = {
  name: 'http',
  description: 'Streamable HTTP runner: session reclaim and memory over rounds (sequential-thinking bin)',
  async run(ctx) {
    await reclaim(ctx);
    await rounds(ctx);
  },
};
export default suite;
