import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { builtAt, coldStart, newerThan } from '../git/coldStart.js';
import { CLIENT_PAUSE_MS, type FirstFigures, firstCalls, reportFirstCalls } from '../git/firstCall.js';
import { type BenchRepo, cloneHono, generateTree } from '../git/repos.js';
import { benchRepo, OPERATIONS, pagingCheck, type RowFigures, reportRepo, type ToolSchema } from '../git/warm.js';
import { git, gitEnv } from '../gitCli.js';
import { type BenchContext, connectStdio, mib, nodeSpec, peakRss, type Suite } from '../harness.js';
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
 * same three figures for a tool that does no work on the same stack (../noopFirstCall.ts), measured first: each
 * operation's first call after connect is checked against its warm call plus that floor (issue 33). Cold start:
 * spawn → first tools/list answer of our bin vs the reference TS servers' Node start (memory,
 * sequential-thinking), interleaved.
 *
 * Environment knobs: BENCH_GIT_BUNDLE (another bundle), BENCH_GIT_BLAME_FILE (hono file to blame),
 * BENCH_GIT_BIN (another build of the bin), BENCH_GIT_KEEP=1 (keep the temp folder, to look into a figure).
 */

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
      // The floor first: the first-call tables hold every operation to "after connect ≤ warm + floor".
      const floor = await noopFirstCall(ctx, ctx.scale(3, 1), CLIENT_PAUSE_MS);
      ctx.record('noopFirstCall', floor);
      const figures: Record<string, RowFigures[]> = {};
      const firstFigures: Record<string, FirstFigures[]> = {};
      for (const repo of repos) {
        const t0 = performance.now();
        const rows = await benchRepo(ctx, conn, repo, schemas);
        figures[repo.key] = rows;
        reportRepo(ctx, repo, rows);
        const first = await firstCalls(ctx, ours, repo, schemas);
        firstFigures[repo.key] = first;
        reportFirstCalls(ctx, repo, first, rows, floor);
        ctx.print(`  (${repo.key}: ${((performance.now() - t0) / 1000).toFixed(1)} s)`);
      }
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
