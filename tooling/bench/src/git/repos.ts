/** The git suite's two repositories: hono (cloned from the vendored bundle) and a generated 5,000-file tree. */
import { existsSync, mkdirSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { git, prng, writeDated } from '../gitCli.js';
import { type BenchContext, mib, ms } from '../harness.js';

/** Hono's file with a long history to blame (107 commits touch src/hono-base.ts, 240 src/context.ts). */
const HONO_BLAME_FILE = process.env.BENCH_GIT_BLAME_FILE ?? 'src/hono-base.ts';
const GEN = { dirsA: 10, dirsB: 5, filesPerDir: 100, commits: 12, filesPerCommit: 25 };
const GEN_BLAME_FILE = 'pkg-0/mod-0/file-000.txt';

export interface BenchRepo {
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

export async function cloneHono(ctx: BenchContext, root: string): Promise<BenchRepo | undefined> {
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

export async function generateTree(ctx: BenchContext, root: string): Promise<BenchRepo> {
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
  const save = (path: string, k: number) => writeDated(dir, path, `${files.get(path)!.join('\n')}\n`, k);
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
