/**
 * The `eras` suite's grid: three sides (ours = this checkout's build, baseline = an earlier build,
 * floor = a bare Node process) × two protocol eras, the goals from issue 18, and the table rows and
 * checks every part of the suite prints the same way.
 */
import { type BenchContext, type Cell, type Era, ratio } from '../harness.js';

export type Side = 'ours' | 'baseline' | 'floor';
const SIDES: readonly Side[] = ['ours', 'baseline', 'floor'];
const ERAS: readonly Era[] = ['2025-11-25', '2026-07-28'];
/** The baseline (v1 SDK) speaks 2025-11-25 only: its 2026 cells are empty. */
const speaks = (side: Side, era: Era) => side !== 'baseline' || era === '2025-11-25';
export const CELLS: readonly { side: Side; era: Era }[] = ERAS.flatMap((era) =>
  SIDES.filter((side) => speaks(side, era)).map((side) => ({ side, era })),
);

/** Goals (issue 18, "Measured, not assumed"). */
export const GOAL = {
  /** Every figure of ours at most this × worse than the baseline's (times ≤ 1.10×, rates ≥ ÷ 1.10). */
  vsBaseline: 1.1,
  /** Cold start ≤ this × the floor's (a bare Node process answering the first request). */
  coldVsFloor: 2,
  /** Streamable HTTP calls per second ≥ this × the bare node:http handler's. */
  httpRpsVsFloor: 0.5,
};

const DASH = '—';

/** One figure per side and era (undefined = not measured: the baseline's 2026 cells). */
export type Grid = Record<Era, Partial<Record<Side, number>>>;
export const emptyGrid = (): Grid => ({ '2025-11-25': {}, '2026-07-28': {} });

export const GRID_HEADERS = (baselineLabel: string) => ['figure', 'era', 'ours', baselineLabel, 'floor', 'ours ÷ baseline', 'ours ÷ floor'];

/** Rows `label, era, ours, baseline, floor, ours ÷ baseline, ours ÷ floor` of one figure, one per era. */
export function gridRows(label: string, grid: Grid, format: (v: number) => string): Cell[][] {
  const show = (v: number | undefined) => (v === undefined ? DASH : format(v));
  const div = (a: number | undefined, b: number | undefined) => (a === undefined || b === undefined ? DASH : ratio(a, b));
  return ERAS.map((era) => {
    const g = grid[era];
    return [label, era, show(g.ours), show(g.baseline), show(g.floor), div(g.ours, g.baseline), div(g.ours, g.floor)];
  });
}

export const perSecond = (v: number) => `${v.toFixed(0)} /s`;

/**
 * `ours` at most `GOAL.vsBaseline` worse than the baseline, in every era the baseline speaks. For a
 * time (`lower` is better) that is ours ≤ 1.10 × baseline; for a rate, ours ≥ baseline ÷ 1.10.
 */
export function checkVsBaseline(ctx: BenchContext, what: string, grid: Grid, better: 'lower' | 'higher', format: (v: number) => string) {
  for (const era of ERAS) {
    const { ours, baseline } = grid[era];
    if (ours === undefined || baseline === undefined) continue;
    const pass = better === 'lower' ? ours <= GOAL.vsBaseline * baseline : ours >= baseline / GOAL.vsBaseline;
    const goal = better === 'lower' ? `≤ ${GOAL.vsBaseline}× baseline` : `≥ baseline ÷ ${GOAL.vsBaseline}`;
    ctx.check(`${what}, ${era}: ${goal}`, pass, `${ratio(ours, baseline)} (${format(ours)} vs ${format(baseline)})`);
  }
}

/** `ours` against the floor in every era: ≤ `factor` × floor (`lower`) or ≥ `factor` × floor (`higher`). */
export function checkVsFloor(
  ctx: BenchContext,
  what: string,
  grid: Grid,
  better: 'lower' | 'higher',
  factor: number,
  format: (v: number) => string,
) {
  for (const era of ERAS) {
    const { ours, floor } = grid[era];
    if (ours === undefined || floor === undefined) continue;
    const pass = better === 'lower' ? ours <= factor * floor : ours >= factor * floor;
    ctx.check(
      `${what}, ${era}: ${better === 'lower' ? '≤' : '≥'} ${factor}× floor`,
      pass,
      `${ratio(ours, floor)} (${format(ours)} vs ${format(floor)})`,
    );
  }
}
