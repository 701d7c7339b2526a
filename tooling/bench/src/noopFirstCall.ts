/**
 * The floor of "first call vs warm call" for any server on our stack: @mcpkit/server-everything's `echo`
 * (protocol-core and the SDK, a tool that does no work) measured the way the git suite measures its
 * operations — its first tools/call on a fresh process right after initialize, the same after
 * `tools/list` and a 1 s pause, and the warm median of repeated calls on one process. Whatever a tool
 * does on top, its own first call cannot be cheaper than this one's, so an operation whose warm call is
 * not well above the floor's first call cannot be within 2× of it.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { type BenchContext, callOk, connectStdio, ms, nodeSpec, ratio, type Stats, stats } from './harness.js';

export interface NoopFirstCall {
  first: Stats;
  afterConnect: Stats;
  warm: Stats;
}

/** Measures it (`runs` fresh processes per way, 30 warm calls) and prints one table; undefined when the bin is not built. */
export async function noopFirstCall(ctx: BenchContext, runs: number, pauseMs: number): Promise<NoopFirstCall | undefined> {
  const bin = join(ctx.repoRoot, 'packages/server-everything/dist/index.js');
  if (!existsSync(bin)) {
    ctx.print(`no-op floor skipped: ${bin} is missing (build server-everything first)`);
    return undefined;
  }
  const spec = nodeSpec('server-everything (echo)', bin);
  const args = { message: 'floor' };
  const first: number[] = [];
  const afterConnect: number[] = [];
  let warm: Stats | undefined;
  for (let run = 0; run < runs; run++) {
    for (const pause of [false, true]) {
      await using conn = await connectStdio(spec, { timeoutMs: 30_000 });
      if (pause) {
        await conn.client.listTools();
        await sleep(pauseMs);
      }
      const t0 = performance.now();
      await callOk(conn, 'echo', args);
      (pause ? afterConnect : first).push(performance.now() - t0);
      if (!warm && pause) {
        const samples: number[] = [];
        for (let i = 0; i < 40; i++) {
          const t = performance.now();
          await callOk(conn, 'echo', args);
          if (i >= 10) samples.push(performance.now() - t);
        }
        warm = stats(samples);
      }
    }
  }
  const figures = { first: stats(first), afterConnect: stats(afterConnect), warm: warm! };
  ctx.table({
    title: 'the floor: a tool that does no work (server-everything echo, same stack), first call vs warm',
    headers: ['right after initialize', '/warm', 'after connect', '/warm', 'warm'],
    rows: [
      [
        ms(figures.first.median),
        ratio(figures.first.median, figures.warm.median),
        ms(figures.afterConnect.median),
        ratio(figures.afterConnect.median, figures.warm.median),
        ms(figures.warm.median),
      ],
    ],
    notes: [
      `median of ${runs} processes each way; warm = 30 calls on one process after 10 discarded`,
      'no tool on this stack has a first call below this one: an operation whose warm call is a few ms cannot be within 2x of it',
    ],
  });
  return figures;
}
