/** The git suite's first-call measure: each operation's first call on fresh server processes, against its warm call and the no-op floor. */
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  type BenchContext,
  type Cell,
  callOk,
  connectStdio,
  ms,
  ratio,
  type SpawnSpec,
  type Stats,
  stats,
  versus,
  withTimeout,
} from '../harness.js';
import type { NoopFirstCall } from '../noopFirstCall.js';
import type { BenchRepo } from './repos.js';
import { OPERATIONS, type RowFigures, TARGET, type ToolSchema } from './warm.js';

export interface FirstFigures {
  operation: string;
  /** Wall time of the operation's first tools/call on fresh server processes, right after initialize. */
  first?: Stats;
  /** The same, as a real client makes it: initialize, tools/list, then the call a second later. */
  afterConnect?: Stats;
  error?: string;
}

/** How long a client waits between listing the tools and its first call, in the "after connect" measure. */
export const CLIENT_PAUSE_MS = 1_000;

/**
 * The first call of each operation after a server start, two ways: spawn a fresh server, connect (initialize)
 * and time one call at once ("right after initialize"); and spawn, connect, list the tools, wait a second as a
 * client does before its first call, then time it ("after connect"). Runs go round the operations, so noise
 * hits them alike.
 */
export async function firstCalls(
  ctx: BenchContext,
  spec: SpawnSpec,
  repo: BenchRepo,
  schemas: Map<string, ToolSchema>,
): Promise<FirstFigures[]> {
  const runs = ctx.scale(3, 1);
  const samples = new Map<string, number[]>(OPERATIONS.map((o) => [o.label, []]));
  const connected = new Map<string, number[]>(OPERATIONS.map((o) => [o.label, []]));
  const errors = new Map<string, string>();
  for (let run = 0; run < runs; run++) {
    for (const op of OPERATIONS) {
      for (const pause of [false, true]) {
        if (!schemas.has(op.tool) || errors.has(op.label)) continue;
        try {
          await using conn = await connectStdio(spec, { timeoutMs: 30_000 });
          if (pause) {
            await conn.client.listTools();
            await sleep(CLIENT_PAUSE_MS);
          }
          const args = op.args(repo, schemas.get(op.tool));
          const t0 = performance.now();
          await withTimeout(callOk(conn, op.tool, args, { timeoutMs: 120_000 }), 130_000, `first ${op.tool} on ${repo.key}`);
          (pause ? connected : samples).get(op.label)!.push(performance.now() - t0);
        } catch (error) {
          errors.set(op.label, (error instanceof Error ? error.message : String(error)).slice(0, 200));
        }
      }
    }
  }
  return OPERATIONS.map((op) => {
    const s = samples.get(op.label)!;
    const c = connected.get(op.label)!;
    const error = errors.get(op.label) ?? (schemas.has(op.tool) ? undefined : `${op.tool} is not in tools/list`);
    return {
      operation: op.label,
      ...(s.length > 0 && !error ? { first: stats(s) } : {}),
      ...(c.length > 0 && !error ? { afterConnect: stats(c) } : {}),
      ...(error ? { error } : {}),
    };
  });
}

/**
 * The first-call table and its checks. Issue 33's goal is the line "after connect ≤ warm + floor": the first call
 * after connect may cost its warm call plus what the first call of a tool that does no work costs on the same
 * stack after connect (`floor`, the no-op's after-connect median in this run), never more. Without the floor
 * (server-everything not built) that line fails as not measured.
 */
export function reportFirstCalls(
  ctx: BenchContext,
  repo: BenchRepo,
  first: FirstFigures[],
  warm: RowFigures[],
  floor: NoopFirstCall | undefined,
): void {
  const rows: Cell[][] = [];
  const floorMs = floor?.afterConnect.median;
  const floorLabel = (op: string) => `${repo.key}: first ${op} after connect ≤ warm + the no-op floor (median)`;
  for (const f of first) {
    // The warm row of the operation's first CLI variant (the one the warm table lists first).
    const w = warm.find((r) => r.operation === f.operation && r.ours && r.git);
    if (!f.first || !f.afterConnect || !w?.ours || !w.git) {
      rows.push([f.operation, f.error ? 'error' : 'n/a', '', '', '', '', '', '', '', '', '']);
      ctx.check(floorLabel(f.operation), false, `not measured: ${f.error ?? 'no warm figure'}`);
      for (const which of ['first', 'first after connect'])
        ctx.check(
          `${repo.key}: ${which} ${f.operation} ≤ ${TARGET.firstVsWarm}× warm (median)`,
          false,
          `not measured: ${f.error ?? 'no warm figure'}`,
        );
      continue;
    }
    const warmMs = w.ours.stats.median;
    const within = f.first.median <= TARGET.firstVsWarm * warmMs;
    const connectedWithin = f.afterConnect.median <= TARGET.firstVsWarm * warmMs;
    const overFloor = floorMs === undefined ? undefined : f.afterConnect.median <= warmMs + floorMs;
    rows.push([
      f.operation,
      ms(f.first.median),
      ratio(f.first.median, warmMs),
      within ? 'yes' : 'NO',
      ms(f.afterConnect.median),
      `${ms(f.afterConnect.min)}–${ms(f.afterConnect.max)}`,
      ratio(f.afterConnect.median, warmMs),
      connectedWithin ? 'yes' : 'NO',
      overFloor === undefined ? 'n/a' : overFloor ? 'yes' : 'NO',
      ms(warmMs),
      `${ms(w.git.stats.median)} (${w.cli})`,
    ]);
    ctx.check(`${repo.key}: first ${f.operation} ≤ ${TARGET.firstVsWarm}× warm (median)`, within, versus(f.first.median, warmMs));
    ctx.check(
      `${repo.key}: first ${f.operation} after connect ≤ ${TARGET.firstVsWarm}× warm (median)`,
      connectedWithin,
      versus(f.afterConnect.median, warmMs),
    );
    if (floorMs === undefined) ctx.check(floorLabel(f.operation), false, 'not measured: no no-op floor (build server-everything)');
    else
      ctx.check(
        floorLabel(f.operation),
        overFloor === true,
        `${ms(f.afterConnect.median)} vs ${ms(warmMs + floorMs)} = warm ${ms(warmMs)} + floor ${ms(floorMs)} (first − warm ${ms(f.afterConnect.median - warmMs)})`,
      );
  }
  ctx.table({
    title: `${repo.about}: first call after server start vs warm`,
    headers: [
      'operation',
      'right after initialize',
      '/warm',
      `≤ ${TARGET.firstVsWarm}×`,
      'after connect',
      'range',
      '/warm',
      `≤ ${TARGET.firstVsWarm}×`,
      '≤ warm + floor',
      'warm',
      'git CLI (warm)',
    ],
    rows,
    notes: [
      `right after initialize = the operation's first tools/call on a fresh server process, sent as soon as initialize is answered (median of ${first.find((f) => f.first)?.first?.n ?? 0} processes)`,
      `after connect = the same as a client makes it: initialize, tools/list, ${CLIENT_PAUSE_MS / 1000} s pause, then the call (the server's background warm-up has had its chance)`,
      `floor = the first call after connect of a tool that does no work (server-everything echo, this run): ${floorMs === undefined ? 'not measured' : ms(floorMs)}`,
      'warm = the median of the warm table above; the CLI starts a fresh process on every call, so its figure is the same either way',
    ],
  });
}
