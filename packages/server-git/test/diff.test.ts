/**
 * git_diff_unstaged, git_diff_staged and git_diff through a real SDK client, compared with what the git
 * CLI prints for the same repository state (GitPython strips the last newline of git's output).
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, statSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { connect, gitRepo, hasGit, honoBundle, type RepoFixture, tempDir, text, write } from './helpers.js';

const strip = (s: string) => (s.endsWith('\n') ? s.slice(0, -1) : s);
const body = (n: number, tag = 'line') => `${Array.from({ length: n }, (_, i) => `${tag} ${i + 1}`).join('\n')}\n`;

/** A repository with most kinds of change, staged and unstaged. */
function busyRepo(): RepoFixture {
  const fx = gitRepo();
  write(fx.repo, {
    'src/app.js': `function start() {\n${body(30, '  step')}}\n\nfunction stop() {\n${body(10, '  halt')}}\n`,
    'docs/guide.md': body(40, 'guide'),
    'old-name.txt': body(25, 'moving'),
    'mv-exact.txt': 'same content\n',
    'run.sh': 'echo run\n',
    'gone.txt': 'bye\n',
    'link-target.txt': 'target\n',
    'img.bin': Buffer.from([0, 1, 2, 3]),
    'name with space.txt': 'space\n',
    'déjà.txt': 'accent\n',
    typechange: 'was a file\n',
    'no-eol.txt': 'a\nb',
  });
  fx.git('add', '-A');
  fx.git('commit', '-q', '-m', 'second');
  // Staged changes.
  fx.git('mv', 'old-name.txt', 'new-name.txt');
  writeFileSync(join(fx.repo, 'new-name.txt'), body(25, 'moving').replace('moving 12', 'moved 12'));
  mkdirSync(join(fx.repo, 'sub'));
  fx.git('mv', 'mv-exact.txt', 'sub/mv-exact.txt');
  write(fx.repo, { 'staged-new.txt': 'brand new\n', 'docs/guide.md': body(40, 'guide').replace('guide 20', 'GUIDE 20') });
  fx.git('rm', '-q', 'gone.txt');
  fx.git('add', '-A');
  // Unstaged changes on top.
  write(fx.repo, {
    'src/app.js': `function start() {\n${body(30, '  step').replace('  step 7\n', '  step 7\n  step 7b\n')}}\n\nfunction stop() {\n${body(10, '  halt').replace('  halt 9', '  HALT 9')}}\n`,
    'docs/guide.md': body(40, 'guide').replace('guide 20', 'GUIDE 20').replace('guide 2\n', 'guide two\n'),
    'img.bin': Buffer.from([0, 1, 2, 4]),
    'name with space.txt': 'spaces\n',
    'déjà.txt': 'accents\n',
    'no-eol.txt': 'a\nb\n',
    'untracked.txt': 'not shown\n',
  });
  chmodSync(join(fx.repo, 'run.sh'), 0o755);
  unlinkSync(join(fx.repo, 'link-target.txt'));
  unlinkSync(join(fx.repo, 'typechange'));
  symlinkSync('src/app.js', join(fx.repo, 'typechange'));
  return fx;
}

async function call(pair: Awaited<ReturnType<typeof connect>>, name: string, args: Record<string, unknown>) {
  return pair.client.callTool({ name, arguments: args });
}

describe('git_diff_unstaged / git_diff_staged', () => {
  it.skipIf(!hasGit)('print exactly the reference text for a clean repository', async () => {
    using fx = gitRepo();
    await using pair = await connect({ repositories: [fx.path] });
    expect(text(await call(pair, 'git_diff_unstaged', { repo_path: fx.repo }))).toBe('Unstaged changes:\n');
    expect(text(await call(pair, 'git_diff_staged', { repo_path: fx.repo }))).toBe('Staged changes:\n');
  });

  it.skipIf(!hasGit)('match git diff and git diff --cached byte for byte, at several context sizes', async () => {
    using fx = busyRepo();
    await using pair = await connect({ repositories: [fx.path] });
    for (const context of [3, 0, 1, 10]) {
      const unstaged = await call(pair, 'git_diff_unstaged', { repo_path: fx.repo, context_lines: context });
      expect(text(unstaged)).toBe(`Unstaged changes:\n${strip(fx.git('diff', `--unified=${context}`))}`);
      const staged = await call(pair, 'git_diff_staged', { repo_path: fx.repo, context_lines: context });
      expect(text(staged)).toBe(`Staged changes:\n${strip(fx.git('diff', `--unified=${context}`, '--cached'))}`);
    }
    const staged = await call(pair, 'git_diff_staged', { repo_path: fx.repo });
    const files = (staged.structuredContent as { files: { path: string; status: string; old_path?: string }[] }).files;
    expect(files.find((f) => f.path === 'new-name.txt')).toMatchObject({ status: 'renamed', old_path: 'old-name.txt' });
    expect(files.find((f) => f.path === 'gone.txt')).toMatchObject({ status: 'deleted' });
    expect(files.find((f) => f.path === 'staged-new.txt')).toMatchObject({ status: 'added', additions: 1, deletions: 0 });
    const unstaged = await call(pair, 'git_diff_unstaged', { repo_path: fx.repo });
    const ufiles = (unstaged.structuredContent as { files: Record<string, unknown>[] }).files;
    expect(ufiles.find((f) => f.path === 'run.sh')).toMatchObject({ status: 'mode', hunks: [] });
    expect(ufiles.find((f) => f.path === 'img.bin')).toMatchObject({ binary: true });
    expect(ufiles.find((f) => f.path === 'src/app.js')).toMatchObject({
      additions: 2,
      deletions: 1,
      hunks: [
        { header: '@@ -6,6 +6,7 @@ function start() {', old_start: 6, old_lines: 6, new_start: 6, new_lines: 7 },
        { header: '@@ -40,6 +41,6 @@ function stop() {', old_start: 40, old_lines: 6, new_start: 41, new_lines: 6 },
      ],
    });
    expect(ufiles.some((f) => f.path === 'untracked.txt')).toBe(false);
  });

  it.skipIf(!hasGit)('show everything as added on an unborn branch', async () => {
    using fx = gitRepo({ initial: false });
    write(fx.repo, { 'a.txt': 'one\n', 'b/c.txt': 'two\nthree' });
    fx.git('add', '-A');
    await using pair = await connect({ repositories: [fx.path] });
    const res = await call(pair, 'git_diff_staged', { repo_path: fx.repo });
    expect(text(res)).toBe(`Staged changes:\n${strip(fx.git('diff', '--cached'))}`);
    expect(text(res)).toContain('new file mode 100644');
  });

  it.skipIf(!hasGit)('filter by paths like git diff -- <paths>, and refuse paths outside the work tree', async () => {
    using fx = busyRepo();
    await using pair = await connect({ repositories: [fx.path] });
    const res = await call(pair, 'git_diff_unstaged', { repo_path: fx.repo, paths: ['src', 'no-eol.txt'] });
    expect(text(res)).toBe(`Unstaged changes:\n${strip(fx.git('diff', '--', 'src', 'no-eol.txt'))}`);
    const out = await call(pair, 'git_diff_unstaged', { repo_path: fx.repo, paths: ['../elsewhere'] });
    expect(out.isError).toBe(true);
    expect(text(out)).toContain('outside the repository');
  });

  it.skipIf(!hasGit)('page a large diff with max_bytes and cursor; the pages add up to the whole text', async () => {
    using fx = gitRepo();
    write(fx.repo, Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`f${i}.txt`, body(200, `f${i}`)])));
    fx.git('add', '-A');
    fx.git('commit', '-q', '-m', 'many');
    write(fx.repo, Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`f${i}.txt`, body(200, `g${i}`)])));
    await using pair = await connect({ repositories: [fx.path] });
    const whole = strip(fx.git('diff'));
    let cursor: string | undefined;
    let joined = '';
    let pages = 0;
    const seen: string[] = [];
    do {
      const res = await call(pair, 'git_diff_unstaged', { repo_path: fx.repo, max_bytes: 8000, ...(cursor ? { cursor } : {}) });
      const sc = res.structuredContent as { truncated: boolean; next_cursor?: string; files: { path: string }[] };
      const t = text(res);
      const head = pages === 0 ? 'Unstaged changes:\n' : 'Unstaged changes (continued):\n';
      expect(t.startsWith(head)).toBe(true);
      const content = sc.truncated ? t.slice(head.length, t.lastIndexOf('\n\n[Output truncated')) : t.slice(head.length);
      expect(Buffer.byteLength(content)).toBeLessThanOrEqual(8000);
      joined += content;
      seen.push(...sc.files.map((f) => f.path));
      cursor = sc.next_cursor;
      pages++;
      if (sc.truncated) expect(t).toContain(`cursor "${cursor}"`);
    } while (cursor);
    expect(pages).toBeGreaterThan(3);
    expect(joined).toBe(whole);
    expect(seen).toEqual(Array.from({ length: 12 }, (_, i) => `f${i}.txt`).sort());
    // Without max_bytes the text is the reference's (below the 1 MiB default cap).
    expect(text(await call(pair, 'git_diff_unstaged', { repo_path: fx.repo }))).toBe(`Unstaged changes:\n${whole}`);
    // A cursor from another state is refused.
    const first = await call(pair, 'git_diff_unstaged', { repo_path: fx.repo, max_bytes: 8000 });
    write(fx.repo, { 'f0.txt': 'changed again\n' });
    const stale = await call(pair, 'git_diff_unstaged', {
      repo_path: fx.repo,
      max_bytes: 8000,
      cursor: (first.structuredContent as { next_cursor: string }).next_cursor,
    });
    expect(stale.isError).toBe(true);
  });
});

describe('git_diff', () => {
  it.skipIf(!hasGit)('compares the work tree with branches, tags, shas and ancestors like git diff <target>', async () => {
    using fx = busyRepo();
    fx.git('tag', '-a', 'v1', '-m', 'tag', 'HEAD~1');
    fx.git('tag', 'light');
    fx.git('branch', 'feature', 'HEAD~1');
    const sha = fx.git('rev-parse', 'HEAD').trim();
    await using pair = await connect({ repositories: [fx.path] });
    for (const target of ['master', 'HEAD', 'HEAD~1', 'HEAD^', 'master~1', 'v1', 'light', 'feature', sha, sha.slice(0, 8), '@']) {
      for (const context of [3, 0]) {
        const res = await call(pair, 'git_diff', { repo_path: fx.repo, target, context_lines: context });
        expect(res.isError ?? false).toBe(false);
        expect(text(res)).toBe(`Diff with ${target}:\n${strip(fx.git('diff', `--unified=${context}`, target))}`);
      }
    }
  });

  it.skipIf(!hasGit)('refuses leading dashes and unknown targets with the reference texts, writing nothing', async () => {
    using fx = gitRepo();
    writeFileSync(join(fx.repo, '.git/refs/heads/--output=evil.txt'), `${fx.git('rev-parse', 'HEAD').trim()}\n`);
    await using pair = await connect({ repositories: [fx.path] });
    const indexBefore = statSync(join(fx.repo, '.git/index')).mtimeMs;
    for (const target of ['--output=evil.txt', '--help', '-p']) {
      const res = await call(pair, 'git_diff', { repo_path: fx.repo, target });
      expect(res.isError).toBe(true);
      expect(text(res)).toBe(`Ref 'Invalid target: '${target}' - cannot start with '-'' did not resolve to an object`);
    }
    const res = await call(pair, 'git_diff', { repo_path: fx.repo, target: 'nope' });
    expect(text(res)).toBe("Ref 'nope' did not resolve to an object");
    const far = await call(pair, 'git_diff', { repo_path: fx.repo, target: 'HEAD~5' });
    expect(far.isError).toBe(true);
    expect(text(far)).toContain('did not resolve to an object');
    expect(existsSync(join(fx.repo, 'evil.txt'))).toBe(false);
    expect(statSync(join(fx.repo, '.git/index')).mtimeMs).toBe(indexBefore);
  });

  it.skipIf(!hasGit)('reference suite: a feature branch diffed against the default branch', async () => {
    using fx = gitRepo();
    fx.git('checkout', '-q', '-b', 'feature-diff');
    write(fx.repo, { 'test.txt': 'feature changes' });
    fx.git('add', 'test.txt');
    fx.git('commit', '-q', '-m', 'feature');
    await using pair = await connect({ repositories: [fx.path] });
    const t = text(await call(pair, 'git_diff', { repo_path: fx.repo, target: 'master' }));
    expect(t).toContain('test.txt');
    expect(t).toContain('feature changes');
    expect(t).toBe(`Diff with master:\n${strip(fx.git('diff', '--unified=3', 'master'))}`);
  });
});

const bundle = honoBundle ?? '';

describe.skipIf(!hasGit || !honoBundle)('on a real repository (hono)', () => {
  it('git_diff HEAD~10 equals git diff HEAD~10 (8-digit abbreviations, renames)', async () => {
    using dir = tempDir();
    const repo = join(dir.path, 'hono');
    execFileSync('git', ['clone', '-q', bundle, repo], { stdio: 'ignore' });
    // Some work-tree edits too, one of them a rename.
    const readme = readFileSync(join(repo, 'README.md'), 'utf8');
    writeFileSync(join(repo, 'README.md'), readme.replace('Hono', 'HONO'));
    renameSync(join(repo, 'package.json'), join(repo, 'package.renamed.json'));
    execFileSync('git', ['add', '-A'], { cwd: repo });
    await using pair = await connect({ repositories: [dir.path] });
    for (const target of ['HEAD~10', 'HEAD~40']) {
      const t0 = performance.now();
      const res = await call(pair, 'git_diff', { repo_path: repo, target });
      const ours = performance.now() - t0;
      const g0 = performance.now();
      const expected = execFileSync('git', ['diff', target], { cwd: repo, maxBuffer: 1 << 28 }).toString('utf8');
      const theirs = performance.now() - g0;
      expect(text(res)).toBe(`Diff with ${target}:\n${strip(expected)}`);
      console.error(`git_diff ${target}: ours ${ours.toFixed(0)} ms, git CLI ${theirs.toFixed(0)} ms`);
    }
    const staged = await call(pair, 'git_diff_staged', { repo_path: repo });
    expect(text(staged)).toBe(`Staged changes:\n${strip(execFileSync('git', ['diff', '--cached'], { cwd: repo }).toString('utf8'))}`);
  }, 120_000);
});
