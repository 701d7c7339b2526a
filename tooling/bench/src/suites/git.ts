import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  rmSync,
  statSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { git, gitEnv, gitRaw, prng, textOf } from '../gitCli.js';
import {
  type BenchContext,
  binPath,
  type Cell,
  callOk,
  coldStarts,
  connectStdio,
  floorSpec,
  latency,
  mib,
  ms,
  nodeSpec,
  peakRss,
  ratio,
  type SpawnSpec,
  type Stats,
  type StdioConnection,
  type Suite,
  stats,
  versus,
  withTimeout,
} from '../harness.js';
import { noopFirstCall } from '../noopFirstCall.js';

/**
 * @mcpkit/server-git (its built bin, over stdio, `--repository <temp folder>`) side by side with the
 * git CLI doing the same thing, in the same run, on two repositories:
 *
 * - hono: `tooling/git-fixtures/hono.bundle` (relative to the repository root) cloned offline
 *   into a temp folder (BENCH_GIT_BUNDLE names another); skipped, with the reason printed, if absent;
 * - gen: a generated work tree of 5,000 files (10 × 5 nested folders × 100 files, ~2.7 KB each,
 *   seeded content) committed in 12 commits, with a few staged, modified, deleted and untracked
 *   files on top.
 *
 * Per operation: warm tool-call latency (a few discarded calls, then N calls through a real SDK
 * client) next to the wall time of `execFile('git', …)` — what a user of the CLI pays — measured in
 * alternating blocks (ours, CLI, ours, …) so machine noise hits both alike. Slow operations get fewer
 * calls (a time budget per side), never fewer than 3. First call: per operation, a fresh server
 * process (spawn, initialize) and one timed call of that operation, the median of a few such processes
 * (operations interleaved), next to the warm median and the CLI's; and the same as a real client makes it
 * (initialize, tools/list, a 1 s pause, then the call), which the server's background warm-up serves; beside them, the
 * same three figures for a tool that does no work on the same stack (../noopFirstCall.ts). Cold start: spawn → first tools/list answer of
 * our bin vs the reference TS servers' Node start (memory, sequential-thinking), interleaved.
 *
 * Environment knobs: BENCH_GIT_BUNDLE (another bundle), BENCH_GIT_BLAME_FILE (hono file to blame),
 * BENCH_GIT_BIN (another build of the bin), BENCH_GIT_KEEP=1 (keep the temp folder, to look into a figure).
 */

/**
 * Targets from the issues: each operation within 1.5× the git CLI (warm), the first call of each operation on a
 * fresh server process within 2× its warm call; cold start ≤ 0.6× the references' Node start.
 */
const TARGET = { vsCli: 1.5, firstVsWarm: 2, coldVsReference: 0.6 };

/** Hono's file with a long history to blame (107 commits touch src/hono-base.ts, 240 src/context.ts). */
const HONO_BLAME_FILE = process.env.BENCH_GIT_BLAME_FILE ?? 'src/hono-base.ts';
const GEN = { dirsA: 10, dirsB: 5, filesPerDir: 100, commits: 12, filesPerCommit: 25 };
const GEN_BLAME_FILE = 'pkg-0/mod-0/file-000.txt';

// ---------------------------------------------------------------------------------------------
// Repositories
// ---------------------------------------------------------------------------------------------

interface BenchRepo {
  key: 'hono' | 'gen';
  /** Work tree (real path, inside the folder given to --repository). */
  dir: string;
  /** One line describing it, for titles. */
  about: string;
  /** A recent non-merge commit for git_show. */
  showSha: string;
  blameFile: string;
}

const WORDS = (
  'alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa quebec romeo ' +
  'sierra tango uniform victor whiskey xray yankee zulu const let return function async await import export ' +
  'default class extends interface type string number boolean value result error config server client request ' +
  'response handler router context branch commit status diff blame show log tree index object packfile'
).split(' ');

async function cloneHono(ctx: BenchContext, root: string): Promise<BenchRepo | undefined> {
  const bundle = process.env.BENCH_GIT_BUNDLE ?? resolve(ctx.repoRoot, 'tooling/git-fixtures/hono.bundle');
  if (!existsSync(bundle)) {
    ctx.print(
      `hono part SKIPPED: ${bundle} does not exist (it is vendored in tooling/git-fixtures). Set BENCH_GIT_BUNDLE to a bundle to run it.`,
    );
    return undefined;
  }
  const dir = join(root, 'hono');
  const t0 = performance.now();
  await git(root, ['clone', '-q', bundle, dir]);
  // A few local changes, so status and diff have work-tree content to show as well.
  writeFileSync(join(dir, 'src', 'bench-untracked.ts'), 'export const untracked = true\n');
  const readme = join(dir, 'README.md');
  writeFileSync(readme, `${(await git(dir, ['show', 'HEAD:README.md'])).trimEnd()}\n\nA line added by the bench.\n`);
  const commits = (await git(dir, ['rev-list', '--count', 'HEAD'])).trim();
  const files = (await git(dir, ['ls-files'])).split('\n').filter(Boolean).length;
  const showSha = (await git(dir, ['rev-list', '-1', '--no-merges', 'HEAD'])).trim();
  const blameCommits = (await git(dir, ['rev-list', '--count', 'HEAD', '--', HONO_BLAME_FILE])).trim();
  ctx.print(
    `hono: cloned ${bundle} in ${ms(performance.now() - t0)}: ${commits} commits, ${files} files; ${HONO_BLAME_FILE} has ${blameCommits} commits`,
  );
  return {
    key: 'hono',
    dir,
    about: `hono (${commits} commits, ${files} files; README.md modified, 1 untracked file)`,
    showSha,
    blameFile: HONO_BLAME_FILE,
  };
}

async function generateTree(ctx: BenchContext, root: string): Promise<BenchRepo> {
  const t0 = performance.now();
  const dir = join(root, 'gen');
  mkdirSync(dir);
  await git(dir, ['init', '-q', '-b', 'main']);
  const rand = prng(0x5eed);
  const pick = (n: number) => Math.floor(rand() * n);
  const line = () => Array.from({ length: 6 + pick(5) }, () => WORDS[pick(WORDS.length)]).join(' ');
  const files = new Map<string, string[]>();
  for (let a = 0; a < GEN.dirsA; a++) {
    for (let b = 0; b < GEN.dirsB; b++) {
      for (let f = 0; f < GEN.filesPerDir; f++) {
        files.set(`pkg-${a}/mod-${b}/file-${String(f).padStart(3, '0')}.txt`, Array.from({ length: 40 + pick(30) }, line));
      }
    }
  }
  const paths = [...files.keys()];
  // Files written for commit k get the mtime 2024-01-01 + k minutes (as after work done long ago): a
  // change always changes the mtime, and no entry is "racily clean" (as new as the index).
  const save = (path: string, k: number) => {
    const file = join(dir, path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, `${files.get(path)!.join('\n')}\n`);
    const time = new Date(Date.UTC(2024, 0, 1, 0, k));
    utimesSync(file, time, time);
  };
  for (const p of paths) save(p, 0);
  let bytes = 0;
  for (const lines of files.values()) bytes += lines.join('\n').length + 1;
  const commitEnv = (k: number) => {
    const date = `2024-02-${String(k + 1).padStart(2, '0')}T12:00:00+00:00`;
    return { GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date };
  };
  await git(dir, ['add', '-A']);
  await git(dir, ['commit', '-q', '-m', 'Initial import of the generated tree'], commitEnv(0));
  for (let k = 1; k < GEN.commits; k++) {
    const touched = new Set<string>([GEN_BLAME_FILE]);
    while (touched.size < GEN.filesPerCommit) touched.add(paths[pick(paths.length)]!);
    for (const p of touched) {
      const lines = files.get(p)!;
      const at = p === GEN_BLAME_FILE ? (k * 3) % lines.length : pick(lines.length);
      lines[at] = `changed in commit ${k}: ${line()}`;
      if (k % 3 === 0) lines.push(`appended in commit ${k}: ${line()}`);
      save(p, k);
    }
    const added = `pkg-${k % GEN.dirsA}/added-${k}.txt`;
    files.set(added, Array.from({ length: 20 }, line));
    save(added, k);
    if (k === 6) {
      const gone = paths[pick(paths.length)]!;
      files.delete(gone);
      unlinkSync(join(dir, gone));
    }
    await git(dir, ['add', '-A']);
    await git(dir, ['commit', '-q', '-m', `Commit ${k}: change ${touched.size} files, add ${added}`], commitEnv(k));
  }
  for (let k = 1; k <= 5; k++) await git(dir, ['branch', `feature-${k}`, `HEAD~${k}`]);
  // The work tree: 5 modified files (one of them staged), 1 deleted, 3 untracked (one in a new folder).
  const live = [...files.keys()].filter((p) => p !== GEN_BLAME_FILE);
  const modified = Array.from({ length: 5 }, (_, i) => live[(i * 997 + 13) % live.length]!);
  for (const p of modified) writeFileSync(join(dir, p), `${files.get(p)!.join('\n')}\nwork-tree change: ${line()}\n`);
  await git(dir, ['add', '--', modified[0]!]);
  unlinkSync(join(dir, live[4242 % live.length]!));
  for (const p of ['pkg-1/untracked-a.txt', 'pkg-2/mod-3/untracked-b.txt', 'new-folder/notes.txt']) {
    mkdirSync(dirname(join(dir, p)), { recursive: true });
    writeFileSync(join(dir, p), `${line()}\n`);
  }
  const showSha = (await git(dir, ['rev-parse', 'HEAD'])).trim();
  ctx.print(
    `gen: ${paths.length} files in ${GEN.dirsA * GEN.dirsB} folders (${mib(bytes)}), ${GEN.commits} commits, 6 branches, generated in ${ms(performance.now() - t0)}`,
  );
  return {
    key: 'gen',
    dir,
    about: `generated tree (${files.size} files, ${GEN.commits} commits; 5 modified of which 1 staged, 1 deleted, 3 untracked)`,
    showSha,
    blameFile: GEN_BLAME_FILE,
  };
}

// ---------------------------------------------------------------------------------------------
// Operations
// ---------------------------------------------------------------------------------------------

interface CliVariant {
  /** The git arguments, e.g. `['status', '--porcelain']`. */
  args: string[];
  /** Ours' text is expected to be `expectPrefix + git's stdout` (ends trimmed); undefined when the formats differ. */
  expectPrefix?: string;
}

interface Operation {
  label: string;
  tool: string;
  args: (repo: BenchRepo, schema: ToolSchema | undefined) => Record<string, unknown>;
  cli: (repo: BenchRepo) => CliVariant[];
}

type ToolSchema = { properties?: Record<string, unknown>; required?: string[] };

/** git_blame is one of our own tools: take its file argument's name from its schema (`file`, `path`, …). */
function blameArgs(repo: BenchRepo, schema: ToolSchema | undefined): Record<string, unknown> {
  const props = Object.keys(schema?.properties ?? {}).filter((k) => k !== 'repo_path');
  const key =
    ['file', 'path', 'file_path', 'filename', 'file_name'].find((k) => props.includes(k)) ??
    schema?.required?.find((k) => k !== 'repo_path') ??
    'file';
  return { repo_path: repo.dir, [key]: repo.blameFile };
}

const OPERATIONS: Operation[] = [
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

interface RowFigures {
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

async function benchRepo(
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

function reportRepo(ctx: BenchContext, repo: BenchRepo, rows: RowFigures[]): void {
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
async function pagingCheck(ctx: BenchContext, conn: StdioConnection, gen: BenchRepo): Promise<void> {
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

// ---------------------------------------------------------------------------------------------
// First call
// ---------------------------------------------------------------------------------------------

interface FirstFigures {
  operation: string;
  /** Wall time of the operation's first tools/call on fresh server processes, right after initialize. */
  first?: Stats;
  /** The same, as a real client makes it: initialize, tools/list, then the call a second later. */
  afterConnect?: Stats;
  error?: string;
}

/** How long a client waits between listing the tools and its first call, in the "after connect" measure. */
const CLIENT_PAUSE_MS = 1_000;

/**
 * The first call of each operation after a server start, two ways: spawn a fresh server, connect (initialize)
 * and time one call at once ("right after initialize"); and spawn, connect, list the tools, wait a second as a
 * client does before its first call, then time it ("after connect"). Runs go round the operations, so noise
 * hits them alike.
 */
async function firstCalls(ctx: BenchContext, spec: SpawnSpec, repo: BenchRepo, schemas: Map<string, ToolSchema>): Promise<FirstFigures[]> {
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

function reportFirstCalls(ctx: BenchContext, repo: BenchRepo, first: FirstFigures[], warm: RowFigures[]): void {
  const rows: Cell[][] = [];
  for (const f of first) {
    // The warm row of the operation's first CLI variant (the one the warm table lists first).
    const w = warm.find((r) => r.operation === f.operation && r.ours && r.git);
    if (!f.first || !f.afterConnect || !w?.ours || !w.git) {
      rows.push([f.operation, f.error ? 'error' : 'n/a', '', '', '', '', '', '', '', '']);
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
    rows.push([
      f.operation,
      ms(f.first.median),
      ratio(f.first.median, warmMs),
      within ? 'yes' : 'NO',
      ms(f.afterConnect.median),
      `${ms(f.afterConnect.min)}–${ms(f.afterConnect.max)}`,
      ratio(f.afterConnect.median, warmMs),
      connectedWithin ? 'yes' : 'NO',
      ms(warmMs),
      `${ms(w.git.stats.median)} (${w.cli})`,
    ]);
    ctx.check(`${repo.key}: first ${f.operation} ≤ ${TARGET.firstVsWarm}× warm (median)`, within, versus(f.first.median, warmMs));
    ctx.check(
      `${repo.key}: first ${f.operation} after connect ≤ ${TARGET.firstVsWarm}× warm (median)`,
      connectedWithin,
      versus(f.afterConnect.median, warmMs),
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
      'warm',
      'git CLI (warm)',
    ],
    rows,
    notes: [
      `right after initialize = the operation's first tools/call on a fresh server process, sent as soon as initialize is answered (median of ${first.find((f) => f.first)?.first?.n ?? 0} processes)`,
      `after connect = the same as a client makes it: initialize, tools/list, ${CLIENT_PAUSE_MS / 1000} s pause, then the call (the server's background warm-up has had its chance)`,
      'warm = the median of the warm table above; the CLI starts a fresh process on every call, so its figure is the same either way',
    ],
  });
}

// ---------------------------------------------------------------------------------------------
// Cold start
// ---------------------------------------------------------------------------------------------

async function coldStart(ctx: BenchContext, ours: SpawnSpec, scratch: string): Promise<void> {
  const refs = [
    nodeSpec('reference server-memory', binPath('@modelcontextprotocol/server-memory', 'mcp-server-memory'), [], {
      MEMORY_FILE_PATH: join(scratch, 'memory.jsonl'),
    }),
    nodeSpec(
      'reference server-sequential-thinking',
      binPath('@modelcontextprotocol/server-sequential-thinking', 'mcp-server-sequential-thinking'),
      [],
      { DISABLE_THOUGHT_LOGGING: 'true' },
    ),
  ];
  const floor = floorSpec();
  const specs = [ours, ...refs, floor];
  const runs = ctx.scale(20, 5);
  const cold = await coldStarts(specs, runs, { warmup: ctx.scale(3, 1), until: 'tools/list', stop: 'kill' });
  const of = (spec: SpawnSpec) => cold[specs.indexOf(spec)]!.stats;
  ctx.record('coldStart', Object.fromEntries(cold.map((c) => [c.label, c.stats])));
  ctx.table({
    title: `cold start: spawn → first tools/list result (${runs} runs each, interleaved)`,
    headers: ['server', 'median', 'p90', 'min', 'max', 'ours / it', 'vs floor'],
    rows: specs.map((spec) => {
      const s = of(spec);
      return [
        spec.label,
        ms(s.median),
        ms(s.p90),
        ms(s.min),
        ms(s.max),
        spec === ours ? '' : ratio(of(ours).median, s.median),
        ratio(s.median, of(floor).median),
      ];
    }),
    notes: [
      `ours = ${ours.args.join(' ')}`,
      'references = the TS reference servers (Node start of a server on the SDK; the git reference is Python and is not run here)',
      'floor = bare Node process answering initialize and tools/list (src/floor.mjs)',
    ],
  });
  for (const ref of refs) {
    ctx.check(
      `cold start ≤ ${TARGET.coldVsReference}× ${ref.label} (median)`,
      of(ours).median <= TARGET.coldVsReference * of(ref).median,
      versus(of(ours).median, of(ref).median),
    );
  }
}

/** The bundle's (dist/cli.js next to the loader, else the bin's) modification time, ISO. */
function builtAt(bin: string): string {
  const bundle = join(dirname(bin), 'cli.js');
  return statSync(existsSync(bundle) ? bundle : bin).mtime.toISOString();
}

/** Files under `dir` modified after `bin` (relative paths): the build does not have them. */
function newerThan(dir: string, bin: string): string[] {
  const bundle = join(dirname(bin), 'cli.js');
  const built = statSync(existsSync(bundle) ? bundle : bin).mtimeMs;
  const out: string[] = [];
  for (const ent of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!ent.isFile()) continue;
    const file = join(ent.parentPath, ent.name);
    if (statSync(file).mtimeMs > built) out.push(relative(dir, file));
  }
  return out;
}

// ---------------------------------------------------------------------------------------------

const suite: Suite = {
  name: 'git',
  description: 'ours (dist bin, stdio) vs the git CLI on hono and a generated 5,000-file tree; cold start vs the TS references',
  async run(ctx: BenchContext) {
    const bin = process.env.BENCH_GIT_BIN ?? join(ctx.repoRoot, 'packages/server-git/dist/index.js');
    if (!existsSync(bin)) throw new Error(`${bin} is missing: build it first (cd packages/server-git && npx tsup)`);
    const version = (await git(ctx.repoRoot, ['--version'])).trim();
    ctx.print(`ours: ${bin} (built ${builtAt(bin)})\ngit CLI: ${version} (GIT_CONFIG_NOSYSTEM=1, GIT_CONFIG_GLOBAL=/dev/null, LC_ALL=C)`);
    const stale = process.env.BENCH_GIT_BIN ? [] : newerThan(join(ctx.repoRoot, 'packages/server-git/src'), bin);
    if (stale.length > 0) {
      ctx.print(
        `WARNING: ${stale.length} source file(s) changed after the build (e.g. ${stale.slice(0, 3).join(', ')}): rebuild for current figures`,
      );
    }
    const root = realpathSync(mkdtempSync(join(tmpdir(), 'mcpkit-bench-git-')));
    try {
      const scratch = join(root, 'scratch');
      mkdirSync(scratch);
      const repos: BenchRepo[] = [];
      const hono = await cloneHono(ctx, root);
      if (hono) repos.push(hono);
      const gen = await generateTree(ctx, root);
      repos.push(gen);
      // Let every file written so far be older than the index by more than git's 1 s granularity, then
      // let git refresh the index once: no "racily clean" entry makes either side re-hash on every call.
      await sleep(1_100);
      for (const r of repos) {
        await git(r.dir, ['update-index', '-q', '--refresh']).catch(() => '');
        await git(r.dir, ['status', '--porcelain']);
      }

      const ours = nodeSpec('ours (server-git)', bin, ['--repository', root], gitEnv());
      await coldStart(ctx, ours, scratch);

      await using conn = await connectStdio(ours, { timeoutMs: 30_000 });
      const { tools } = await conn.client.listTools();
      const schemas = new Map(tools.map((t) => [t.name, t.inputSchema as ToolSchema]));
      const missing = OPERATIONS.map((o) => o.tool).filter((t) => !schemas.has(t));
      if (missing.length > 0) ctx.print(`ours has no ${missing.join(', ')} yet (tools: ${tools.map((t) => t.name).join(', ')})`);
      const figures: Record<string, RowFigures[]> = {};
      const firstFigures: Record<string, FirstFigures[]> = {};
      for (const repo of repos) {
        const t0 = performance.now();
        const rows = await benchRepo(ctx, conn, repo, schemas);
        figures[repo.key] = rows;
        reportRepo(ctx, repo, rows);
        const first = await firstCalls(ctx, ours, repo, schemas);
        firstFigures[repo.key] = first;
        reportFirstCalls(ctx, repo, first, rows);
        ctx.print(`  (${repo.key}: ${((performance.now() - t0) / 1000).toFixed(1)} s)`);
      }
      ctx.record('noopFirstCall', await noopFirstCall(ctx, ctx.scale(3, 1), CLIENT_PAUSE_MS));
      if (schemas.has('git_show')) await pagingCheck(ctx, conn, gen);
      const rss = peakRss(conn.pid);
      ctx.print(`ours peak RSS after the run: ${mib(rss?.peak)}`);
      ctx.record('figures', { ...figures, rss });
      ctx.record('firstCalls', firstFigures);
    } finally {
      if (process.env.BENCH_GIT_KEEP) ctx.print(`kept ${root} (BENCH_GIT_KEEP)`);
      else rmSync(root, { recursive: true, force: true });
    }
  },
};

export default suite;
