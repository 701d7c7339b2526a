import { type BenchContext, type Cell, mib, ms, ratio, type Stats, versus } from '../../harness.js';
import type { Floors, Handshake, HandshakeSide, LoadFigures } from './floors.js';
import { RECORDS } from './floors.js';
import { type Figures, ops, type Side } from './ops.js';

/** Targets: issue 3 (vs the reference at 10k, absolute at 100k) and issue 11 (floors, cold start, load, RSS). */
const TARGET = {
  mutationVsRef10k: 50,
  openVsRef10k: 50,
  searchVsRef10k: 20,
  mutation100kMs: 5,
  search100kMs: 50,
  load100kMs: 1000,
  /** Every mutation ≤ this × the append+fdatasync floor of its record, at every size. */
  mutationVsDiskFloor: 2,
  /** Issue 33 §4: every mutation ≤ this × (the append+fdatasync floor + the bare call round trip), at 1k, 10k and 100k. */
  mutationVsDiskCallFloor: 1.5,
  /** Every mutation ≥ this × faster than the reference at 1k. */
  mutationVsRef1k: 10,
  /** `initialize` and `tools/list` with the file ≤ this × with an empty file. */
  coldVsEmpty: 1.2,
  /** Our load ≤ this × reading the file and parsing each line, at 100k. */
  loadVsParse100k: 1.5,
  peakRss100kMiB: 400,
};

const MUTATIONS = ['create1', 'create100', 'addObs', 'createRel', 'delObs', 'delRel', 'delEnt'] as const;

export function printFloors(
  ctx: BenchContext,
  n: number,
  sizeFig: Record<string, Record<Side, Stats | undefined>>,
  floors: Floors,
  handshake: Handshake,
  load: LoadFigures,
): void {
  const rows: Cell[][] = [];
  for (const op of ops(ctx)) {
    const ours = sizeFig[op.key]?.ours;
    if (!op.record || !ours) continue;
    const disk = floors.disk[op.key] ?? floors.tight[op.record];
    rows.push([
      op.label,
      ms(ours.median),
      ms(disk.median),
      ratio(ours.median, disk.median),
      ms(disk.median + floors.call.median),
      ratio(ours.median, disk.median + floors.call.median),
    ]);
  }
  ctx.table({
    title: `memory @ ${n.toLocaleString('en')}: mutations against the floors (medians)`,
    headers: ['mutation', 'ours', 'disk floor', 'ours/disk', 'disk + call floor', 'ours/(disk+call)'],
    rows,
    notes: [
      `disk floor: append + fdatasync of the record the mutation journals (${RECORDS.small.length} B for one item, ${RECORDS.batch.length} B for 100 entities), same disk, one sample right after each of our calls; in a tight loop before them: ${ms(floors.tight.small.median)} and ${ms(floors.tight.batch.median)}`,
      `call floor: tools/call round trip to a bare Node process over the SDK stdio client, ${ms(floors.call.median)}; it is in every figure of ours, not in the disk floor`,
    ],
  });
  const h = handshake;
  const row = (label: string, f: Record<HandshakeSide, Stats>): Cell[] => [
    label,
    ms(f.empty.median),
    ms(f.file.median),
    ratio(f.file.median, f.empty.median),
    ms(f.reference.median),
  ];
  ctx.table({
    title: `memory @ ${n.toLocaleString('en')}: answered before the graph is loaded; the load against the parse floor`,
    headers: ['cold start (median)', 'ours, empty file', 'ours, this file', 'file/empty', 'reference, this file'],
    rows: [row('spawn → initialize', h.initialize), row('spawn → tools/list', h.toolsList)],
    notes: [
      `load (in this process: openFileStore until the graph is loaded): ${ms(load.load.median)}; parse floor (read the file + JSON.parse of each line): ${ms(load.parse.median)}; load/floor ${ratio(load.load.median, load.parse.median)}`,
      `heap held by the loaded graph and store (after a full GC): ${mib(load.heap)}`,
    ],
  });
}

/**
 * The goal of issue 33 §4: a write costs at most 1.5× what the disk (append + `fdatasync` of its record,
 * sampled right after each call) and a bare round trip (the client and the pipe) cost together. Every
 * mutation counts, the batch of 100 entities too; the detail names the worst single-item write apart.
 */
function judgeDiskCallFloor(ctx: BenchContext, label: string, measured: { key: string; ours: Stats; floor: Stats }[], call: Stats): void {
  const over = (m: { ours: Stats; floor: Stats }) => m.ours.median / (m.floor.median + call.median);
  const worstOf = (list: typeof measured) => list.reduce((a, b) => (over(b) > over(a) ? b : a));
  const worst = worstOf(measured);
  const single = measured.filter((m) => m.key !== 'create100');
  const worstSingle = single.length > 0 ? worstOf(single) : undefined;
  const failing = measured.filter((m) => over(m) > TARGET.mutationVsDiskCallFloor);
  const show = (m: { key: string; ours: Stats; floor: Stats }) =>
    `${m.key} ${ratio(m.ours.median, m.floor.median + call.median)} (${ms(m.ours.median)} vs ${ms(m.floor.median)} + ${ms(call.median)})`;
  ctx.check(
    `${label}: every mutation ≤ ${TARGET.mutationVsDiskCallFloor}× disk + call floor (issue 33 §4)`,
    failing.length === 0,
    `worst ${show(worst)}${worstSingle && worstSingle !== worst ? `; worst single-item write ${show(worstSingle)}` : ''}${failing.length > 0 ? `; over: ${failing.map((m) => m.key).join(', ')}` : ''}`,
  );
}

export function judgeFloors(
  ctx: BenchContext,
  figures: Figures,
  floors: Record<string, Floors>,
  handshakes: Record<string, Handshake>,
  loads: Record<string, LoadFigures>,
): void {
  const records = Object.fromEntries(ops(ctx).map((op) => [op.key, op.record])) as Record<string, 'small' | 'batch' | undefined>;
  for (const [size, fig] of Object.entries(figures)) {
    const n = Number(size);
    const label = n >= 1000 ? `${n / 1000}k` : size;
    const floor = floors[size]!;
    const measured = MUTATIONS.map((key) => ({
      key,
      ours: fig[key]?.ours,
      floor: floor.disk[key] ?? floor.tight[records[key] ?? 'small'],
    })).filter((m): m is { key: (typeof MUTATIONS)[number]; ours: Stats; floor: Stats } => m.ours !== undefined);
    if (measured.length > 0) {
      const over = measured.filter((m) => m.ours.median > TARGET.mutationVsDiskFloor * m.floor.median);
      const worst = measured.reduce((a, b) => (b.ours.median / b.floor.median > a.ours.median / a.floor.median ? b : a));
      ctx.check(
        `${label}: every mutation ≤ ${TARGET.mutationVsDiskFloor}× the append+fdatasync floor`,
        over.length === 0,
        `worst ${worst.key} ${versus(worst.ours.median, worst.floor.median)}${over.length > 1 ? `; over: ${over.map((m) => m.key).join(', ')}` : ''}; against disk + call floor (${ms(floor.call.median)}): ${ratio(worst.ours.median, worst.floor.median + floor.call.median)}`,
      );
      judgeDiskCallFloor(ctx, label, measured, floor.call);
    }
    const h = handshakes[size];
    if (h) {
      for (const [what, f] of [
        ['initialize', h.initialize],
        ['tools/list', h.toolsList],
      ] as const) {
        ctx.check(
          `${label}: ${what} with the file ≤ ${TARGET.coldVsEmpty}× with an empty file`,
          f.file.median <= TARGET.coldVsEmpty * f.empty.median,
          `${versus(f.file.median, f.empty.median)}; reference with the file ${ms(f.reference.median)}`,
        );
      }
    }
  }
  const at1k = figures['1000'];
  if (at1k) {
    const measured = MUTATIONS.flatMap((key) => {
      const f = at1k[key];
      return f?.ours && f.reference ? [{ key, ours: f.ours, reference: f.reference, speedup: f.reference.median / f.ours.median }] : [];
    });
    if (measured.length > 0) {
      const slowest = measured.reduce((a, b) => (b.speedup < a.speedup ? b : a));
      ctx.check(
        `1k: every mutation ≥ ${TARGET.mutationVsRef1k}× faster than the reference`,
        measured.every((m) => m.speedup >= TARGET.mutationVsRef1k),
        `slowest ${slowest.key} ${slowest.speedup.toFixed(1)}× (${ms(slowest.ours.median)} vs ${ms(slowest.reference.median)}); ${measured.map((m) => `${m.key} ${m.speedup.toFixed(0)}×`).join(', ')}`,
      );
    }
  }
  const load = loads['100000'];
  if (load) {
    ctx.check(
      `100k: load ≤ ${TARGET.loadVsParse100k}× the parse floor (read + JSON.parse of each line)`,
      load.load.median <= TARGET.loadVsParse100k * load.parse.median,
      `${versus(load.load.median, load.parse.median)}; heap held after the load ${mib(load.heap)}`,
    );
    const at100k = figures['100000'];
    const peak = at100k?.rss?.ours?.median;
    ctx.check(
      `100k: peak RSS ≤ ${TARGET.peakRss100kMiB} MiB`,
      peak !== undefined && peak <= TARGET.peakRss100kMiB * 1024 * 1024,
      `${mib(peak)} at the end of the run, ${mib(at100k?.loadedRss?.ours?.median)} at the first answer; reference ${mib(at100k?.rss?.reference?.median)}`,
    );
  }
}

export function cells(f: Record<Side, Stats | undefined>): Cell[] {
  const o = f.ours;
  const r = f.reference;
  return [
    o ? `${ms(o.median)} (${o.n})` : '-',
    r ? `${ms(r.median)} (${r.n})` : 'n/a',
    o && r ? ratio(o.median, r.median) : '',
    o && r ? `${(r.median / o.median).toFixed(0)}×` : '',
  ];
}

export function judge(ctx: BenchContext, figures: Figures): void {
  const at = (n: number, key: string) => figures[String(n)]?.[key];
  const speedup = (n: number, key: string) => {
    const f = at(n, key);
    return f?.ours && f.reference ? f.reference.median / f.ours.median : Number.NaN;
  };
  for (const [key, target] of [
    ['create1', TARGET.mutationVsRef10k],
    ['addObs', TARGET.mutationVsRef10k],
    ['open', TARGET.openVsRef10k],
    ['searchHit', TARGET.searchVsRef10k],
    ['searchMiss', TARGET.searchVsRef10k],
  ] as const) {
    const s = speedup(10_000, key);
    const f = at(10_000, key);
    if (!f) continue;
    ctx.check(
      `10k: ${key} ≥ ${target}× faster than the reference`,
      s >= target,
      `${s.toFixed(0)}× (${ms(f.ours!.median)} vs ${ms(f.reference!.median)})`,
    );
  }
  if (figures['100000']) {
    for (const key of ['create1', 'addObs'] as const) {
      const o = at(100_000, key)!.ours!;
      ctx.check(`100k: ${key} median < ${TARGET.mutation100kMs} ms`, o.median < TARGET.mutation100kMs, ms(o.median));
    }
    for (const key of ['searchHit', 'searchMiss'] as const) {
      const o = at(100_000, key)!.ours!;
      ctx.check(`100k: ${key} median < ${TARGET.search100kMs} ms`, o.median < TARGET.search100kMs, ms(o.median));
    }
    const cold = at(100_000, 'cold')!.ours!;
    ctx.check(
      `100k: start with the file, load it and answer < ${TARGET.load100kMs} ms`,
      cold.median < TARGET.load100kMs,
      `${ms(cold.median)} (spawn + load + initialize + first open_nodes)`,
    );
  }
}
