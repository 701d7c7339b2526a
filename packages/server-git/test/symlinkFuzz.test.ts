/**
 * Property test for issue 22, item 1: random small repositories whose tracked folders and files are
 * replaced by symlinks (to folders and files inside the work tree, outside every allowed root, to
 * `.git`, to themselves, up a level, or to nothing), then compared with the git CLI on the same tree:
 * git_status's lists with `git status --porcelain`, git_diff_unstaged's files with `git diff`, and the
 * index git_add ["."] writes with the one `git add .` writes from the same tree (into a copy of the index). No answer may hold outside content.
 *
 * A seeded generator (mulberry32), so a failure names its seed and case and replays exactly:
 * `MCPKIT_FUZZ_SEED=<seed> npx vitest run test/symlinkFuzz.test.ts`.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, lstatSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { connect, git, gitEnv, gitRepo, hasGit, tempDir, text, write } from './helpers.js';

const noGit = !hasGit && !process.env.CI;
const SEED = Number(process.env.MCPKIT_FUZZ_SEED ?? 0x5eed22);
const CASES = 30;
const MARK = 'OUTSIDE-CONTENT';

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Rand = () => number;
const pick = <T>(r: Rand, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;

const DIRS = ['a', 'a/b', 'a/b/c', 'd', 'd/e', 'g'] as const;
const FILES = ['f0.txt', 'f1.txt'] as const;
const TARGETS = [
  'outside',
  'outside-sub',
  'outside-file',
  'inside-dir',
  'inside-file',
  'inside-abs',
  'gitdir',
  'self',
  'parent',
  'dangling',
];

/** What `rel` is, reached without passing a symlink (as git would see it): 'dir', 'file', 'link' or null. */
function kindOf(repo: string, rel: string): 'dir' | 'file' | 'link' | null {
  const parts = rel.split('/');
  for (let i = 1; i <= parts.length; i++) {
    let st: ReturnType<typeof lstatSync>;
    try {
      st = lstatSync(join(repo, ...parts.slice(0, i)));
    } catch {
      return null;
    }
    if (i < parts.length && !st.isDirectory()) return null;
    if (i === parts.length) return st.isSymbolicLink() ? 'link' : st.isDirectory() ? 'dir' : 'file';
  }
  return null;
}

/** The blob ids of every file in `dir` (recursively, links not followed): outside content must never be staged. */
function blobIds(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => {
      const bytes = readFileSync(join(d.parentPath, d.name));
      return createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex');
    });
}

/** Builds one case in `repo` (committed tree, then mutations); returns a description for failure messages. */
function buildCase(r: Rand, repo: string, outside: string): string[] {
  const dirs = DIRS.filter(() => r() < 0.7);
  const tracked: string[] = [];
  for (const d of ['', ...dirs]) for (const f of FILES) if (d === '' || r() < 0.8) tracked.push(d === '' ? f : `${d}/${f}`);
  write(repo, Object.fromEntries(tracked.map((p) => [p, `inside ${p}\n`])));
  // The outside folder mirrors the names, so a link followed by mistake finds "modified" files there.
  write(outside, Object.fromEntries(tracked.map((p) => [p, `${MARK} ${p}\n`])));
  write(outside, Object.fromEntries(tracked.map((p) => [p.split('/').pop()!, `${MARK} top\n`])));
  git(repo, ['add', '.']);
  git(repo, ['commit', '-q', '-m', 'tree']);
  const log: string[] = [];
  const n = 1 + Math.floor(r() * 4);
  for (let i = 0; i < n; i++) {
    const kind = pick(r, ['dir-link', 'dir-link', 'file-link', 'edit', 'delete', 'untracked', 'dir-file']);
    const want = kind.startsWith('dir') || kind === 'untracked' ? 'dir' : 'file';
    const candidates = (want === 'dir' ? dirs : tracked).filter((p) => kindOf(repo, p) === want);
    if (kind === 'untracked') candidates.push('');
    if (candidates.length === 0) continue;
    const chosen = pick(r, candidates);
    const path = kind === 'untracked' ? (chosen === '' ? `new${i}.txt` : `${chosen}/new${i}.txt`) : chosen;
    const abs = join(repo, path);
    if (kind === 'edit') writeFileSync(abs, `edited ${i}\n`);
    else if (kind === 'delete') rmSync(abs);
    else if (kind === 'untracked') writeFileSync(abs, `new ${i}\n`);
    else if (kind === 'dir-file') {
      rmSync(abs, { recursive: true });
      writeFileSync(abs, 'a file where a folder was\n');
    } else {
      const target = pick(r, TARGETS);
      const other = pick(r, tracked);
      const link = {
        outside,
        'outside-sub': join(outside, pick(r, ['a', 'a/b', 'd'])),
        'outside-file': join(outside, other),
        'inside-dir': relative(dirname(abs), join(repo, pick(r, dirs.length ? dirs : ['a']))) || '.',
        'inside-file': relative(dirname(abs), join(repo, other)),
        'inside-abs': join(repo, pick(r, [...dirs, other])),
        gitdir: join(repo, '.git'),
        self: path.split('/').pop()!,
        parent: '..',
        dangling: 'nowhere/at/all',
      }[target]!;
      rmSync(abs, { recursive: true, force: true });
      symlinkSync(link, abs);
      log.push(`${kind} ${path} -> ${link} (${target})`);
      continue;
    }
    log.push(`${kind} ${path}`);
  }
  return log;
}

/** Runs git, returning stdout and the paths git gave up on ("<path>: Too many levels of symbolic links"). */
function gitLoops(repo: string, args: string[]): { stdout: string; loops: string[] } {
  const res = spawnSync('git', args, { cwd: repo, env: gitEnv(), encoding: 'utf8' });
  if (res.status !== 0) throw new Error(`git ${args.join(' ')} failed: ${res.stderr}`);
  const loops = [...res.stderr.matchAll(/^(.+): Too many levels of symbolic links$/gm)].map((m) => m[1]!);
  return { stdout: res.stdout, loops: [...new Set(loops)] };
}

/**
 * `git status --porcelain` as sorted lists: staged (X), unstaged (Y), untracked. git leaves out a
 * tracked file behind a symlink loop (lstat fails with ELOOP, which it reports on stderr and skips);
 * the file is not there, so this server says deleted, as git does for any other link on the way and
 * as `git add .` then stages: those paths count as deleted here.
 */
function gitLists(repo: string) {
  const out = { staged: [] as string[], unstaged: [] as string[], untracked: [] as string[] };
  const { stdout, loops } = gitLoops(repo, ['status', '--porcelain=v1', '-unormal']);
  for (const line of stdout.split('\n').filter(Boolean)) {
    const [x, y, path] = [line[0]!, line[1]!, line.slice(3)];
    if (x === '?') out.untracked.push(path);
    else {
      if (x !== ' ') out.staged.push(`${x} ${path}`);
      if (y !== ' ') out.unstaged.push(`${y} ${path}`);
    }
  }
  for (const path of loops) out.unstaged.push(`D ${path}`);
  return { staged: out.staged.sort(), unstaged: out.unstaged.sort(), untracked: out.untracked };
}

/** The files `git diff` shows (sorted), with the ones it skipped behind a symlink loop as deletions. */
function gitDiffFiles(repo: string): string[] {
  const { stdout, loops } = gitLoops(repo, ['diff']);
  return [...diffFiles(stdout), ...loops].sort();
}

const LETTER: Record<string, string> = { added: 'A', modified: 'M', deleted: 'D', typechange: 'T' };
type Change = { path: string; status: string };

function ourLists(structured: unknown) {
  const s = structured as { staged: Change[]; unstaged: Change[]; untracked: string[] };
  const list = (cs: Change[]) => cs.map((c) => `${LETTER[c.status]} ${c.path}`).sort();
  return { staged: list(s.staged), unstaged: list(s.unstaged), untracked: [...s.untracked] };
}

const diffFiles = (patch: string) => [...patch.matchAll(/^diff --git a\/(\S+) b\/(\S+)$/gm)].map((m) => m[2]!);

describe('symlinks in the work tree, compared with git (seeded property test)', () => {
  it.skipIf(noGit)(
    `${CASES} random trees with links inside, outside, to .git, loops and dangling (seed ${SEED})`,
    async () => {
      const r = mulberry32(SEED);
      for (let c = 0; c < CASES; c++) {
        using fx = gitRepo({ initial: false });
        using outside = tempDir('mcpkit-outside-');
        using scratch = tempDir();
        const log = buildCase(r, fx.repo, outside.path);
        const where = `seed ${SEED}, case ${c}:\n  ${log.join('\n  ')}`;
        await using pair = await connect({ repositories: [fx.path] });

        const status = await pair.client.callTool({ name: 'git_status', arguments: { repo_path: fx.repo } });
        expect(status.isError, `${where}\n${text(status)}`).toBeFalsy();
        expect(ourLists(status.structuredContent), `${where}\n${text(status)}`).toEqual(gitLists(fx.repo));

        const diff = text(await pair.client.callTool({ name: 'git_diff_unstaged', arguments: { repo_path: fx.repo } }));
        expect(diff, where).not.toContain(MARK);
        expect(diffFiles(diff).sort(), `${where}\n${diff}`).toEqual(gitDiffFiles(fx.repo));

        // git add . on the same tree, into a copy of the index (GIT_INDEX_FILE), before ours changes it.
        const gitIndex = join(scratch.path, 'index');
        copyFileSync(join(fx.repo, '.git', 'index'), gitIndex);
        git(fx.repo, ['add', '.'], { GIT_INDEX_FILE: gitIndex });
        const add = await pair.client.callTool({ name: 'git_add', arguments: { repo_path: fx.repo, files: ['.'] } });
        expect(add.isError, `${where}\n${text(add)}`).toBeFalsy();
        const staged = git(fx.repo, ['ls-files', '-s']);
        expect(staged, where).toBe(git(fx.repo, ['ls-files', '-s'], { GIT_INDEX_FILE: gitIndex }));
        for (const oid of blobIds(outside.path)) expect(staged, where).not.toContain(oid);
      }
    },
    60_000,
  );
});
