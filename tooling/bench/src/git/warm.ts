/** The git suite's warm measure: each operation on one server process beside the git CLI, in alternating blocks. */
import { performance } from 'node:perf_hooks';
import { git, gitRaw, textOf } from '../gitCli.js';
import {
  type BenchContext,
  type Cell,
  callOk,
  latency,
  mib,
  ms,
  ratio,
  type Stats,
  type StdioConnection,
  stats,
  versus,
  withTimeout,
} from '../harness.js';
import type { BenchRepo } from './repos.js';

/**
 * Targets from the issues: each operation within 1.5× the git CLI (warm), the first call of each operation on a
 * fresh server process within 2× its warm call; cold start ≤ 0.6× the references' Node start.
 */
export const TARGET = { vsCli: 1.5, firstVsWarm: 2, coldVsReference: 0.6 };

interface CliVariant {
  /** The git arguments, e.g. `['status', '--porcelain']`. */
  args: string[];
  /** Ours' text is expected to be `expectPrefix + git's stdout` (ends trimmed); undefined when the formats differ. */
  expectPrefix?: string;
}

export interface Operation {
  label: string;
  tool: string;
  args: (repo: BenchRepo, schema: ToolSchema | undefined) => Record<string, unknown>;
  cli: (repo: BenchRepo) => CliVariant[];
}

export type ToolSchema = { properties?: Record<string, unknown>; required?: string[] };

/** git_blame is one of our own tools: take its file argument's name from its schema (`file`, `path`, …). */
function blameArgs(repo: BenchRepo, schema: ToolSchema | undefined): Record<string, unknown> {
  const props = Object.keys(schema?.properties ?? {}).filter((k) => k !== 'repo_path');
  const key =
    ['file', 'path', 'file_path', 'filename', 'file_name'].find((k) => props.includes(k)) ??
    schema?.required?.find((k) => k !== 'repo_path') ??
    'file';
  return { repo_path: repo.dir, [key]: repo.blameFile };
}

export const OPERATIONS: Operation[] = [
  {
    label: 'git_status',
    tool: 'git_status',
    args: (r) => ({ repo_path: r.dir }),
    cli: () => [{ args: ['status', '--porcelain'] }, { args: ['status'], expectPrefix: 'Repository status:\n' }],
  },
  {
    label: 'git_log max_count 100',
    tool: 'git_log',
    args: (r) => ({ repo_path: r.dir, max_count: 100 }),
    cli: () => [{ args: ['log', '-100'] }],
  },
  {
    label: 'git_diff HEAD~10',
    tool: 'git_diff',
    args: (r) => ({ repo_path: r.dir, target: 'HEAD~10' }),
    cli: () => [{ args: ['diff', 'HEAD~10'], expectPrefix: 'Diff with HEAD~10:\n' }],
  },
  {
    label: 'git_show <recent commit>',
    tool: 'git_show',
    args: (r) => ({ repo_path: r.dir, revision: r.showSha }),
    cli: (r) => [{ args: ['show', r.showSha] }],
  },
  {
    label: 'git_branch local',
    tool: 'git_branch',
    args: (r) => ({ repo_path: r.dir, branch_type: 'local' }),
    cli: () => [{ args: ['branch'], expectPrefix: '' }],
  },
  {
    label: 'git_blame <file>',
    tool: 'git_blame',
    args: blameArgs,
    cli: (r) => [{ args: ['blame', r.blameFile] }],
  },
];

/** `''` when equal, else where the first difference is (line number and both lines, shortened). */
function firstDifference(ours: string, expected: string): string {
  if (ours === expected) return '';
  const a = ours.split('\n');
  const b = expected.split('\n');
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if (a[i] !== b[i]) {
      const cut = (s: string | undefined) => (s === undefined ? '(none)' : JSON.stringify(s.length > 90 ? `${s.slice(0, 90)}…` : s));
      return `line ${i + 1}: ours ${cut(a[i])}, expected ${cut(b[i])} (${a.length} vs ${b.length} lines)`;
    }
  }
  return 'differs';
}

interface Measured {
  stats: Stats;
  /** Size of one answer in bytes (ours: the text content; CLI: stdout). */
  bytes: number;
}

export interface RowFigures {
  repo: string;
  operation: string;
  cli: string;
  ours?: Measured;
  git?: Measured;
  /** `yes`, `no` (see `difference`), or '' when the formats are not meant to be equal. */
  same: string;
  difference?: string;
  error?: string;
}

/**
 * Warm-up then timed calls of several sides (ours, then each CLI variant), in `blocks` alternating
 * blocks. Each side's call count is `calls`, lowered so that its timed calls fit in `budgetMs` judging
 * by its last warm-up call, but not below 3 (1 when a call takes over 10 s). `spent` is the time a side
 * already spent in an untimed call, counted with its warm-up.
 */
async function measureSides(
  sides: { fn: () => Promise<unknown>; spent: number }[],
  calls: number,
  warmups: number,
  budgetMs: number,
  blocks: number,
): Promise<number[][]> {
  const counts: number[] = [];
  for (const side of sides) {
    let spent = side.spent;
    let last = side.spent;
    // At least one warm-up call after the untimed one (which may have filled caches), unless that took over 10 s.
    for (let w = 0; w < warmups && (w === 0 ? side.spent <= 10_000 : spent < budgetMs / 2); w++) {
      const t0 = performance.now();
      await side.fn();
      last = performance.now() - t0;
      spent += last;
    }
    const floor = last > 10_000 ? 1 : 3;
    counts.push(Math.max(floor, Math.min(calls, Math.floor(budgetMs / Math.max(last, 0.001)))));
  }
  const samples = sides.map(() => [] as number[]);
  for (let b = 0; b < blocks; b++) {
    for (const [i, side] of sides.entries()) {
      const n = Math.floor((counts[i]! * (b + 1)) / blocks) - Math.floor((counts[i]! * b) / blocks);
      if (n === 0) continue;
      const lat = await latency(side.fn, n, { warmup: 0 });
      samples[i]!.push(...lat.samples);
    }
  }
  return samples;
}

export async function benchRepo(
  ctx: BenchContext,
  conn: StdioConnection,
  repo: BenchRepo,
  schemas: Map<string, ToolSchema>,
): Promise<RowFigures[]> {
  const rows: RowFigures[] = [];
  const calls = ctx.scale(30, 6);
  const warmups = ctx.scale(3, 1);
  const budgetMs = ctx.scale(3_000, 800);
  const blocks = ctx.scale(3, 1);
  for (const op of OPERATIONS) {
    const variants = op.cli(repo);
    // Shown with shas shortened to 12 digits; run with the full ones.
    const shown = (v: CliVariant) => `git ${v.args.map((a) => (/^[0-9a-f]{40}$/.test(a) ? a.slice(0, 12) : a)).join(' ')}`;
    const base = (v: CliVariant): RowFigures => ({ repo: repo.key, operation: op.label, cli: shown(v), same: '' });
    if (!schemas.has(op.tool)) {
      for (const v of variants) rows.push({ ...base(v), error: `${op.tool} is not in tools/list` });
      continue;
    }
    const args = op.args(repo, schemas.get(op.tool));
    const callOurs = () => callOk(conn, op.tool, args, { timeoutMs: 120_000 });
    try {
      // One untimed call each for the size and the comparison of the texts.
      const t0 = performance.now();
      const oursText = textOf(await withTimeout(callOurs(), 130_000, `${op.tool} on ${repo.key}`));
      const oursFirst = performance.now() - t0;
      const cliTexts: string[] = [];
      const cliFirst: number[] = [];
      for (const v of variants) {
        const t1 = performance.now();
        cliTexts.push(await git(repo.dir, v.args));
        cliFirst.push(performance.now() - t1);
      }
      const samples = await withTimeout(
        measureSides(
          [{ fn: callOurs, spent: oursFirst }, ...variants.map((v, i) => ({ fn: () => gitRaw(repo.dir, v.args), spent: cliFirst[i]! }))],
          calls,
          warmups,
          budgetMs,
          blocks,
        ),
        300_000,
        `${op.label} on ${repo.key}`,
      );
      const ours: Measured = { stats: stats(samples[0]!), bytes: Buffer.byteLength(oursText) };
      for (const [i, v] of variants.entries()) {
        const difference =
          v.expectPrefix === undefined ? undefined : firstDifference(oursText.trimEnd(), (v.expectPrefix + cliTexts[i]!).trimEnd());
        rows.push({
          ...base(v),
          ours,
          git: { stats: stats(samples[i + 1]!), bytes: Buffer.byteLength(cliTexts[i]!) },
          same: difference === undefined ? '' : difference === '' ? 'yes' : 'no',
          ...(difference ? { difference } : {}),
        });
      }
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      ctx.print(`  ${repo.key}: ${op.label}: ERROR ${message.slice(0, 400)}; server stderr: ${conn.stderr().slice(-600)}`);
      for (const v of variants) rows.push({ ...base(v), error: message.slice(0, 200) });
    }
  }
  return rows;
}

const kib = (bytes: number) => (bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KiB`);

export function reportRepo(ctx: BenchContext, repo: BenchRepo, rows: RowFigures[]): void {
  const cells: Cell[][] = rows.map((r) => {
    if (r.error || !r.ours || !r.git) return [r.operation, 'error', '', r.cli, '', '', '', 'FAIL', '', '', ''];
    const within = r.ours.stats.median <= TARGET.vsCli * r.git.stats.median;
    return [
      r.operation,
      ms(r.ours.stats.median),
      ms(r.ours.stats.p90),
      r.cli,
      ms(r.git.stats.median),
      ms(r.git.stats.p90),
      ratio(r.ours.stats.median, r.git.stats.median),
      within ? 'yes' : 'NO',
      `${r.ours.stats.n}/${r.git.stats.n}`,
      `${kib(r.ours.bytes)} / ${kib(r.git.bytes)}`,
      r.same,
    ];
  });
  const notes = [
    'ours = tools/call round trip through a real SDK client over stdio (warm: repeated calls on one server process)',
    'git CLI = wall time of execFile("git", …) from this process, stdout collected (what a user of the CLI pays)',
    'calls = timed calls ours/CLI after warm-up, in alternating blocks; slow operations get fewer (at least 3, or 1 over 10 s a call)',
    'same text: ours == prefix + CLI stdout (ends trimmed) where the reference reproduces the CLI (status long form, diff, branch)',
  ];
  for (const r of rows) {
    if (r.difference) notes.push(`text differs, ${r.operation} vs ${r.cli}: ${r.difference}`);
    if (r.error) notes.push(`${r.operation} (${r.cli}): ${r.error}`);
  }
  ctx.table({
    title: `${repo.about}: warm latency, ours vs the git CLI (median)`,
    headers: [
      'operation',
      'ours',
      'ours p90',
      'git CLI',
      'CLI',
      'CLI p90',
      'ours/CLI',
      `≤ ${TARGET.vsCli}×`,
      'calls',
      'text ours / CLI',
      'same text',
    ],
    rows: cells,
    notes,
  });
  for (const r of rows) {
    const label = `${repo.key}: ${r.operation} ≤ ${TARGET.vsCli}× \`${r.cli}\` (median)`;
    if (r.error || !r.ours || !r.git) ctx.check(label, false, `not measured: ${r.error ?? 'no figures'}`);
    else ctx.check(label, r.ours.stats.median <= TARGET.vsCli * r.git.stats.median, versus(r.ours.stats.median, r.git.stats.median));
  }
}

/** Large outputs are paged: git_show of the generated tree's first commit (its patch is the whole tree). */
export async function pagingCheck(ctx: BenchContext, conn: StdioConnection, gen: BenchRepo): Promise<void> {
  const root = (await git(gen.dir, ['rev-list', '--max-parents=0', 'HEAD'])).trim();
  const cliBytes = (await gitRaw(gen.dir, ['show', root])).length;
  const t0 = performance.now();
  try {
    const res = await callOk(conn, 'git_show', { repo_path: gen.dir, revision: root }, { timeoutMs: 120_000 });
    const took = performance.now() - t0;
    const bytes = Buffer.byteLength(JSON.stringify(res));
    const sc = res.structuredContent as Record<string, unknown> | undefined;
    const cursor = sc?.next_cursor ?? sc?.nextCursor;
    ctx.record('paging', { cliBytes, answerBytes: bytes, ms: took, cursor: typeof cursor === 'string' });
    ctx.check(
      'gen: git_show of the 5,000-file first commit is paged (answer ≤ 2 MiB with a next_cursor)',
      bytes <= 2 * 1024 * 1024 && typeof cursor === 'string',
      `answer ${mib(bytes)} in ${ms(took)}, next_cursor ${typeof cursor === 'string' ? 'present' : 'absent'}; git show prints ${mib(cliBytes)}`,
    );
  } catch (error) {
    ctx.check(
      'gen: git_show of the 5,000-file first commit is paged (answer ≤ 2 MiB with a next_cursor)',
      false,
      `failed after ${ms(performance.now() - t0)}: ${(error instanceof Error ? error.message : String(error)).slice(0, 300)}`,
    );
  }
}
