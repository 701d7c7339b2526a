import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { git, gitEnv, gitRaw, prng, textOf, writeDated } from '../gitCli.js';
import {
  type BenchContext,
  type Cell,
  callOk,
  connectStdio,
  latency,
  mib,
  ms,
  nodeSpec,
  peakRss,
  ratio,
  type StdioConnection,
  type Suite,
  stats,
} from '../harness.js';

/**
 * @mcpkit/server-git on large generated trees (5,000, 20,000 and 50,000 files by default), each
 * operation timed in alternating blocks beside the git CLI doing the same in the same run, so the
 * ratios are of one machine state (the load, `uptime`, is printed with each tree). Several builds can
 * be compared in the same run: BENCH_GIT_BINS="before=/path/a/dist/index.js,after=/path/b/dist/index.js"
 * (default: this checkout's packages/server-git/dist/index.js). BENCH_GIT_SCALE=5000,50000 picks the
 * sizes; BENCH_GIT_SCALE_ROUNDS the alternating blocks (default 3, quick 1); BENCH_GIT_KEEP=1 keeps the trees, BENCH_GIT_SCALE_REUSE=<kept folder> measures them again. After the operations,
 * each server's RSS (current and peak) is printed: what a warm server holds after status, diff, log, show.
 * Not part of a full `pnpm bench` (generating the trees takes minutes): `pnpm bench -- --only git-scale`.
 *
 * The tree: folders of 100 files (~1 KB each) under pkg-<a>/mod-<b>/, one import commit, 10 commits
 * changing 25 files each, then a large commit changing 2% of the files (git_show's case), and on top
 * 5 modified work-tree files (one staged), 1 deleted and 3 untracked.
 */

const SIZES = (process.env.BENCH_GIT_SCALE ?? '5000,20000,50000').split(',').map((s) => Number(s.trim()));

const WORDS =
  'alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa quebec romeo sierra tango const let return function async await import export default class value result error config server client request'.split(
    ' ',
  );

interface ScaleRepo {
  dir: string;
  files: number;
  bigSha: string;
  bigFiles: number;
}

async function generate(root: string, count: number): Promise<ScaleRepo> {
  const reuse = process.env.BENCH_GIT_SCALE_REUSE && join(process.env.BENCH_GIT_SCALE_REUSE, `gen-${count}`);
  if (reuse && existsSync(reuse)) {
    const files = (await git(reuse, ['ls-files'])).split('\n').filter(Boolean).length;
    return { dir: reuse, files, bigSha: (await git(reuse, ['rev-parse', 'HEAD'])).trim(), bigFiles: Math.ceil(count * 0.02) };
  }
  const dir = join(root, `gen-${count}`);
  mkdirSync(dir);
  await git(dir, ['init', '-q', '-b', 'main']);
  const rand = prng(0x5eed + count);
  const pick = (n: number) => Math.floor(rand() * n);
  const line = () => Array.from({ length: 5 + pick(5) }, () => WORDS[pick(WORDS.length)]).join(' ');
  const files = new Map<string, string[]>();
  const perB = 10;
  for (let i = 0; i < count; i++) {
    const folder = Math.floor(i / 100);
    files.set(
      `pkg-${Math.floor(folder / perB)}/mod-${folder % perB}/file-${String(i % 100).padStart(3, '0')}.txt`,
      Array.from({ length: 15 + pick(15) }, line),
    );
  }
  const paths = [...files.keys()];
  const save = (path: string, k: number) => writeDated(dir, path, `${files.get(path)!.join('\n')}\n`, k);
  for (const p of paths) save(p, 0);
  const commitEnv = (k: number) => {
    const date = `2024-02-${String(k + 1).padStart(2, '0')}T12:00:00+00:00`;
    return { GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date };
  };
  await git(dir, ['add', '-A']);
  await git(dir, ['commit', '-q', '-m', 'Initial import'], commitEnv(0));
  const change = (p: string, k: number, lines: number) => {
    const text = files.get(p)!;
    for (let j = 0; j < lines; j++) text[pick(text.length)] = `changed in commit ${k}: ${line()}`;
    if (k % 3 === 0) text.push(`appended in commit ${k}: ${line()}`);
    save(p, k);
  };
  for (let k = 1; k <= 10; k++) {
    const touched = new Set<string>();
    while (touched.size < 25) touched.add(paths[pick(paths.length)]!);
    for (const p of touched) change(p, k, 1);
    if (k === 6) {
      const gone = paths.splice(pick(paths.length), 1)[0]!;
      files.delete(gone);
      unlinkSync(join(dir, gone));
    }
    await git(dir, ['add', '-A']);
    await git(dir, ['commit', '-q', '-m', `Commit ${k}`], commitEnv(k));
  }
  const big = new Set<string>();
  const bigCount = Math.ceil(count * 0.02);
  while (big.size < bigCount) big.add(paths[pick(paths.length)]!);
  for (const p of big) change(p, 11, 3);
  await git(dir, ['add', '-A']);
  await git(dir, ['commit', '-q', '-m', `Large commit: ${big.size} files`], commitEnv(11));
  const bigSha = (await git(dir, ['rev-parse', 'HEAD'])).trim();
  const modified = Array.from({ length: 5 }, (_, i) => paths[(i * 997 + 13) % paths.length]!);
  for (const p of modified) writeFileSync(join(dir, p), `${files.get(p)!.join('\n')}\nwork-tree change: ${line()}\n`);
  await git(dir, ['add', '--', modified[0]!]);
  unlinkSync(join(dir, paths[4242 % paths.length]!));
  for (const p of ['pkg-1/untracked-a.txt', 'pkg-0/mod-3/untracked-b.txt', 'new-folder/notes.txt']) {
    mkdirSync(dirname(join(dir, p)), { recursive: true });
    writeFileSync(join(dir, p), `${line()}\n`);
  }
  return { dir, files: files.size, bigSha, bigFiles: big.size };
}

interface Op {
  label: string;
  tool: string;
  args: (r: ScaleRepo) => Record<string, unknown>;
  cli: (r: ScaleRepo) => string[];
  /** ours' text = prefix + CLI stdout (ends trimmed); undefined: formats differ. */
  prefix?: string;
}

const OPS: Op[] = [
  {
    label: 'git_status ↔ git status',
    tool: 'git_status',
    args: (r) => ({ repo_path: r.dir }),
    cli: () => ['status'],
    prefix: 'Repository status:\n',
  },
  {
    label: 'git_diff HEAD~10',
    tool: 'git_diff',
    args: (r) => ({ repo_path: r.dir, target: 'HEAD~10', max_bytes: 4 * 1024 * 1024 }),
    cli: () => ['diff', 'HEAD~10'],
    prefix: 'Diff with HEAD~10:\n',
  },
  {
    label: 'git_diff_staged',
    tool: 'git_diff_staged',
    args: (r) => ({ repo_path: r.dir }),
    cli: () => ['diff', '--cached'],
    prefix: 'Staged changes:\n',
  },
  { label: 'git_log 100', tool: 'git_log', args: (r) => ({ repo_path: r.dir, max_count: 100 }), cli: () => ['log', '-100'] },
  {
    label: 'git_show <large commit>',
    tool: 'git_show',
    args: (r) => ({ repo_path: r.dir, revision: r.bigSha, max_bytes: 4 * 1024 * 1024 }),
    cli: (r) => ['show', r.bigSha],
  },
];

const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

async function benchTree(ctx: BenchContext, repo: ScaleRepo, conns: { label: string; conn: StdioConnection }[]): Promise<void> {
  const rounds = Number(process.env.BENCH_GIT_SCALE_ROUNDS ?? ctx.scale(3, 1));
  const perBlock = ctx.scale(3, 2);
  const loadBefore = load();
  const rows: Cell[][] = [];
  for (const op of OPS) {
    const sides = [
      ...conns.map((c) => ({ label: c.label, fn: () => callOk(c.conn, op.tool, op.args(repo), { timeoutMs: 300_000 }) })),
      { label: 'git CLI', fn: () => gitRaw(repo.dir, op.cli(repo)) },
    ];
    // One untimed call each (caches filled, text compared).
    const cliText = (await gitRaw(repo.dir, op.cli(repo))).toString('utf8');
    const same: string[] = [];
    for (const s of sides.slice(0, -1)) {
      const text = textOf((await s.fn()) as object);
      if (op.prefix !== undefined) same.push(`${text.trimEnd() === (op.prefix + cliText).trimEnd() ? 'same' : 'DIFFERS'} (${s.label})`);
    }
    const samples = sides.map(() => [] as number[]);
    for (let b = 0; b < rounds; b++) {
      for (const [i, s] of sides.entries()) samples[i]!.push(...(await latency(s.fn, perBlock, { warmup: b === 0 ? 1 : 0 })).samples);
    }
    const cli = stats(samples.at(-1)!).median;
    const row: Cell[] = [op.label];
    for (const [i, s] of sides.entries()) {
      const m = stats(samples[i]!).median;
      row.push(i === sides.length - 1 ? ms(m) : `${ms(m)} (${ratio(m, cli)})`);
      ctx.record(`${repo.files}:${op.tool}:${s.label}`, stats(samples[i]!));
    }
    row.push(same.join(', '));
    rows.push(row);
  }
  const rss = conns.map((c) => {
    const r = peakRss(c.conn.pid);
    ctx.record(`${repo.files}:rss:${c.label}`, r);
    return `${c.label} ${mib(r?.current)} (peak ${mib(r?.peak)})`;
  });
  ctx.table({
    title: `${repo.files} files (large commit: ${repo.bigFiles} files): warm medians, ours/CLI in brackets`,
    headers: ['operation', ...conns.map((c) => c.label), 'git CLI', 'text vs CLI'],
    rows,
    notes: [
      `load average before: ${loadBefore}, after: ${load()}`,
      `RSS after: ${rss.join('; ')}`,
      `${rounds} alternating rounds of ${perBlock} calls per side`,
    ],
  });
}

const suite: Suite = {
  name: 'git-scale',
  description: 'server-git on 5k/20k/50k-file generated trees vs the git CLI (status, diff, diff --cached, log, show), RSS',
  async run(ctx: BenchContext) {
    // Minutes of tree generation: only when asked for (`--only git-scale`, or BENCH_GIT_SCALE set).
    if (!ctx.filter.includes('git-scale') && !process.env.BENCH_GIT_SCALE) {
      ctx.print('git-scale SKIPPED: run it with `--only git-scale` (or set BENCH_GIT_SCALE=5000,20000,50000)');
      return;
    }
    const bins = (process.env.BENCH_GIT_BINS ?? `ours=${join(ctx.repoRoot, 'packages/server-git/dist/index.js')}`).split(',').map((s) => {
      const at = s.indexOf('=');
      return { label: s.slice(0, at), bin: s.slice(at + 1) };
    });
    const root = realpathSync(mkdtempSync(join(tmpdir(), 'mcpkit-bench-git-scale-')));
    try {
      for (const size of SIZES) {
        const t0 = performance.now();
        const repo = await generate(root, size);
        await sleep(1_100);
        await git(repo.dir, ['update-index', '-q', '--refresh']).catch(() => '');
        await git(repo.dir, ['status', '--porcelain']);
        ctx.print(`gen-${size}: ${repo.files} files, generated in ${ms(performance.now() - t0)}`);
        const conns: { label: string; conn: StdioConnection }[] = [];
        try {
          for (const b of bins) {
            const conn = await connectStdio(nodeSpec(b.label, b.bin, ['--repository', repo.dir, '--no-warmup'], gitEnv()), {
              timeoutMs: 30_000,
            });
            conns.push({ label: b.label, conn });
          }
          await benchTree(ctx, repo, conns);
        } finally {
          for (const c of conns) await c.conn.close();
        }
        if (!process.env.BENCH_GIT_KEEP && !repo.dir.startsWith(root)) ctx.print(`reused ${repo.dir}`);
        else if (!process.env.BENCH_GIT_KEEP) rmSync(repo.dir, { recursive: true, force: true });
      }
    } finally {
      if (process.env.BENCH_GIT_KEEP) ctx.print(`kept ${root} (BENCH_GIT_KEEP)`);
      else rmSync(root, { recursive: true, force: true });
    }
  },
};

export default suite;
