/**
 * One table and one set of goal lines for a stdio load of ours against a reference server (the `everything` and
 * `sequential-thinking` suites): latency, calls/s at each concurrency, server CPU per call and peak RSS, with the
 * ratios to the reference (and to the floor when there is one), and issue 33 §2's goals checked in the same run.
 */
import type { BenchContext, Cell, LoadFigures, Rss } from './harness.js';
import { mib, ms, ratio } from './stats.js';

export interface SideFigures extends LoadFigures {
  rss: Rss | undefined;
}

export interface LoadCounts {
  calls: number;
  total: number;
  blocks: number;
}

export interface ReferenceTargets {
  /** Ours ÷ reference, median latency, at most. */
  latencyVsReference: number;
  /** Ours ÷ reference, server CPU per call, at most. */
  cpuVsReference: number;
  /** Ours ÷ reference, calls/s at every concurrency, at least. */
  throughputVsReference: number;
}

const micros = (v: number | undefined) => (v === undefined ? 'n/a' : `${v.toFixed(0)} µs`);
const div = (a: number | undefined, b: number | undefined) => (a === undefined || b === undefined ? 'n/a' : ratio(a, b));

/** `rows`: ours first, then the reference, then (optionally) the floor. */
export function loadTable(ctx: BenchContext, title: string, counts: LoadCounts, rows: readonly (readonly [string, SideFigures])[]) {
  const [ours, reference, floor] = rows.map(([, f]) => f) as [SideFigures, SideFigures, SideFigures | undefined];
  const levels = ours.throughputs.map((t) => t.concurrency);
  const figureRow = (label: string, f: SideFigures): Cell[] => [
    label,
    ms(f.latency.median),
    ms(f.latency.p90),
    ms(f.latency.p99),
    ...f.throughputs.map((t) => t.perSecond.toFixed(0)),
    micros(f.cpuPerCallUs),
    mib(f.rss?.peak),
  ];
  const ratioRow = (label: string, a: SideFigures, b: SideFigures): Cell[] => [
    label,
    ratio(a.latency.median, b.latency.median),
    ratio(a.latency.p90, b.latency.p90),
    ratio(a.latency.p99, b.latency.p99),
    ...a.throughputs.map((t, l) => div(t.perSecond, b.throughputs[l]?.perSecond)),
    div(a.cpuPerCallUs, b.cpuPerCallUs),
    a.rss && b.rss ? ratio(a.rss.peak, b.rss.peak) : '',
  ];
  ctx.table({
    title: `${title} (${counts.calls} sequential calls; ${counts.total} calls at each of ${levels.join(' and ')} in flight; ${counts.blocks} alternating blocks)`,
    headers: [
      'server',
      'latency median',
      'p90',
      'p99',
      ...levels.map((c) => `calls/s (${c} in flight)`),
      'server CPU per call',
      'peak RSS',
    ],
    rows: [
      ...rows.map(([label, f]) => figureRow(label, f)),
      ratioRow('ours / reference', ours, reference),
      ...(floor ? [ratioRow('ours / floor', ours, floor)] : []),
    ],
    notes: [
      'latency = client-side round trip with the real SDK Client (includes the client’s own work and the pipe)',
      'server CPU per call = the server process’s CPU time (/proc, all threads) over the timed calls ÷ their number; other jobs hardly move it',
      'peak RSS = VmHWM of the server process after the whole load (cold start not included)',
    ],
  });
}

/** Issue 33 §2: latency and CPU per call ≤ the targets × the reference's, calls/s ≥ the target × at every concurrency. */
export function checkVsReference(ctx: BenchContext, what: string, ours: SideFigures, reference: SideFigures, target: ReferenceTargets) {
  const o = ours.latency.median;
  const r = reference.latency.median;
  ctx.check(
    `${what}: latency ≤ ${target.latencyVsReference}× reference (median)`,
    o <= target.latencyVsReference * r,
    `${ratio(o, r)} (${ms(o)} vs ${ms(r)})`,
  );
  const oc = ours.cpuPerCallUs;
  const rc = reference.cpuPerCallUs;
  if (oc !== undefined && rc !== undefined) {
    ctx.check(
      `${what}: server CPU per call ≤ ${target.cpuVsReference}× reference`,
      oc <= target.cpuVsReference * rc,
      `${ratio(oc, rc)} (${micros(oc)} vs ${micros(rc)})`,
    );
  }
  for (const [l, t] of ours.throughputs.entries()) {
    const ref = reference.throughputs[l];
    if (!ref) continue;
    ctx.check(
      `${what}: calls/s at ${t.concurrency} in flight ≥ ${target.throughputVsReference}× reference`,
      t.perSecond >= target.throughputVsReference * ref.perSecond,
      `${ratio(t.perSecond, ref.perSecond)} (${t.perSecond.toFixed(0)} vs ${ref.perSecond.toFixed(0)} /s)`,
    );
  }
}
