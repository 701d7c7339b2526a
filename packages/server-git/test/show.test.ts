/**
 * git_show through a real SDK client. Expected texts are the reference's observed outputs (§4.3) and
 * one captured from the reference code run with GitPython 3.2 on the same repository (renames, binary,
 * mode-only, empty files, type change, names with spaces and accents). The hunks are also checked
 * against `git diff-tree -M -p`.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { connect, gitRepo, hasGit, honoBundle, tempDir, text, write } from './helpers.js';

const body = (n: number, tag = 'line') => `${Array.from({ length: n }, (_, i) => `${tag} ${i + 1}`).join('\n')}\n`;
const DATE = /^Date: datetime\.datetime\(2024, 1, 15, 14, 30, 25, tzinfo=<git\.objects\.util\.tzoffset object at 0x[0-9a-f]+>\)$/m;

async function show(pair: Awaited<ReturnType<typeof connect>>, repo: string, revision: string, extra: Record<string, unknown> = {}) {
  return pair.client.callTool({ name: 'git_show', arguments: { repo_path: repo, revision, ...extra } });
}

describe('git_show', () => {
  it.skipIf(!hasGit)("prints the reference's text for a modification and a deletion", async () => {
    using fx = gitRepo();
    write(fx.repo, { 'a.txt': 'one\ntwo\n', 'b.txt': 'bye\n' });
    fx.git('add', '-A');
    fx.git('commit', '-q', '-m', 'first');
    write(fx.repo, { 'a.txt': 'one\nTWO\n' });
    fx.git('rm', '-q', 'b.txt');
    fx.git('add', '-A');
    fx.git('commit', '-q', '-m', 'second');
    const sha = fx.git('rev-parse', 'HEAD').trim();
    await using pair = await connect({ repositories: [fx.path] });
    const res = await show(pair, fx.repo, sha);
    const t = text(res);
    expect(t).toMatch(DATE);
    expect(t.replace(DATE, 'Date: X')).toBe(
      `Commit: '${sha}'\nAuthor: <git.Actor "Test User <test@example.com>">\nDate: X\nMessage: 'second\\n'\n` +
        '\n--- a.txt\n+++ a.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+TWO\n\n--- b.txt\n+++ None\n@@ -1 +0,0 @@\n-bye\n',
    );
    expect(res.structuredContent).toMatchObject({
      commit: {
        oid: sha,
        author: { name: 'Test User', email: 'test@example.com', date: '2024-01-15T14:30:25+01:00' },
        message: 'second\n',
        parents: [fx.git('rev-parse', 'HEAD~1').trim()],
      },
      files: [
        { path: 'a.txt', status: 'modified', additions: 1, deletions: 1 },
        { path: 'b.txt', status: 'deleted', additions: 0, deletions: 1 },
      ],
      truncated: false,
    });
  });

  it.skipIf(!hasGit)('shows an added file, and a root commit as additions (reference suite 24, 25)', async () => {
    using fx = gitRepo();
    write(fx.repo, { 'show_test.txt': 'new\n' });
    fx.git('add', '-A');
    fx.git('commit', '-q', '-m', 'show test commit');
    await using pair = await connect({ repositories: [fx.path] });
    const added = text(await show(pair, fx.repo, 'HEAD'));
    expect(added).toContain("Message: 'show test commit\\n'");
    expect(added.endsWith('\n--- None\n+++ show_test.txt\n@@ -0,0 +1 @@\n+new\n')).toBe(true);
    const root = text(await show(pair, fx.repo, fx.git('rev-parse', 'HEAD~1').trim()));
    expect(root).toContain('initial commit');
    expect(root.endsWith('\n--- None\n+++ test.txt\n@@ -0,0 +1 @@\n+test\n\\ No newline at end of file\n')).toBe(true);
  });

  it.skipIf(!hasGit)('matches GitPython for renames, binary files, modes, empty files and type changes', async () => {
    using fx = gitRepo();
    write(fx.repo, {
      'a.txt': body(30),
      'old.txt': body(20, 'o'),
      'exact.txt': 'exact\n',
      'bin.dat': Buffer.from([0, 1]),
      'name with space.txt': 'x\n',
      'déjà.txt': 'd\n',
      'run.sh': 'echo\n',
      'empty.txt': '',
      tc: 'file\n',
    });
    fx.git('add', '-A');
    fx.git('commit', '-q', '-m', 'second\n\nbody line');
    write(fx.repo, {
      'a.txt': body(30).replace('line 5\n', 'LINE 5\n'),
      'bin.dat': Buffer.from([0, 2]),
      'name with space.txt': 'y\n',
      'déjà.txt': 'e\n',
      'new-empty.txt': '',
      'bin2.dat': Buffer.from([0, 9]),
    });
    fx.git('rm', '-q', 'empty.txt');
    mkdirSync(join(fx.repo, 'd'));
    fx.git('mv', 'exact.txt', 'd/exact.txt');
    fx.git('mv', 'old.txt', 'new.txt');
    writeFileSync(join(fx.repo, 'new.txt'), body(20, 'o').replace('o 3\n', 'O 3\n'));
    chmodSync(join(fx.repo, 'run.sh'), 0o755);
    unlinkSync(join(fx.repo, 'tc'));
    symlinkSync('a.txt', join(fx.repo, 'tc'));
    fx.git('add', '-A');
    fx.git('commit', '-q', '-m', 'third: it\'s "quoted"');
    await using pair = await connect({ repositories: [fx.path] });
    const t = text(await show(pair, fx.repo, 'HEAD'));
    const files = t.slice(t.indexOf('\n\n--- ') + 1);
    expect(t).toContain(`Message: 'third: it\\'s "quoted"\\n'\n`);
    expect(files).toBe(
      [
        '\n--- a.txt\n+++ a.txt\n@@ -2,7 +2,7 @@ line 1\n line 2\n line 3\n line 4\n-line 5\n+LINE 5\n line 6\n line 7\n line 8\n',
        '\n--- bin.dat\n+++ bin.dat\nBinary files a/bin.dat and b/bin.dat differ\n',
        '\n--- bin2.dat\n+++ bin2.dat\nBinary files /dev/null and b/bin2.dat differ\n',
        '\n--- exact.txt\n+++ d/exact.txt\n',
        '\n--- déjà.txt\n+++ déjà.txt\n@@ -1 +1 @@\n-d\n+e\n',
        '\n--- name with space.txt\n+++ name with space.txt\n@@ -1 +1 @@\n-x\n+y\n',
        '\n--- empty.txt\n+++ new-empty.txt\n',
        '\n--- old.txt\n+++ new.txt\n@@ -1,6 +1,6 @@\n o 1\n o 2\n-o 3\n+O 3\n o 4\n o 5\n o 6\n',
        '\n--- run.sh\n+++ run.sh\n',
        '\n--- tc\n+++ None\n@@ -1 +0,0 @@\n-file\n',
        '\n--- None\n+++ tc\n@@ -0,0 +1 @@\n+a.txt\n\\ No newline at end of file\n',
      ].join(''),
    );
    // The hunks are git's own (diff-tree -M -p).
    const tree = fx.git('diff-tree', '-M', '-p', 'HEAD~1', 'HEAD');
    for (const hunk of files.split(/\n(?=@@ )/).slice(1)) expect(tree).toContain(hunk.split('\n\n---')[0]);
  });

  it.skipIf(!hasGit)('refuses leading dashes (even for an existing ref of that name) and unknown revisions', async () => {
    using fx = gitRepo();
    writeFileSync(join(fx.repo, '.git/refs/heads/--format=evil'), `${fx.git('rev-parse', 'HEAD').trim()}\n`);
    await using pair = await connect({ repositories: [fx.path] });
    for (const revision of ['--format=evil', '-p', `--output=${fx.path}/evil`]) {
      const res = await show(pair, fx.repo, revision);
      expect(res.isError).toBe(true);
      expect(text(res)).toBe(`Ref 'Invalid revision: '${revision}' - cannot start with '-'' did not resolve to an object`);
    }
    expect(existsSync(join(fx.path, 'evil'))).toBe(false);
    expect(text(await show(pair, fx.repo, 'nope'))).toBe("Ref 'nope' did not resolve to an object");
    const short = fx.git('rev-parse', '--short', 'HEAD').trim();
    expect(text(await show(pair, fx.repo, short))).toContain('initial commit');
    expect(text(await show(pair, fx.repo, 'master'))).toContain('initial commit');
  });

  it.skipIf(!hasGit)('keeps a message without a final newline as stored', async () => {
    using fx = gitRepo();
    const tree = fx.git('rev-parse', 'HEAD^{tree}').trim();
    const oid = execFileSync('git', ['commit-tree', tree, '-p', 'HEAD'], {
      cwd: fx.repo,
      input: 'no newline',
      encoding: 'utf8',
      env: { ...process.env, GIT_AUTHOR_NAME: 'A', GIT_AUTHOR_EMAIL: 'a@x', GIT_COMMITTER_NAME: 'A', GIT_COMMITTER_EMAIL: 'a@x' },
    }).trim();
    // commit-tree adds no newline when the input has none
    expect(execFileSync('git', ['cat-file', 'commit', oid], { cwd: fx.repo, encoding: 'utf8' }).endsWith('\n\nno newline')).toBe(true);
    await using pair = await connect({ repositories: [fx.path] });
    expect(text(await show(pair, fx.repo, oid))).toContain("Message: 'no newline'\n");
  });
});

const bundle = honoBundle ?? '';

describe.skipIf(!hasGit || !honoBundle)('git_show on a real repository (hono)', () => {
  it('pages a big commit: the pages add up to the whole text', async () => {
    using dir = tempDir();
    const repo = join(dir.path, 'hono');
    execFileSync('git', ['clone', '-q', bundle, repo], { stdio: 'ignore' });
    // The commit with the largest patch among recent ones.
    const revs = execFileSync('git', ['rev-list', '--no-merges', '-n', '30', 'HEAD'], { cwd: repo, encoding: 'utf8' }).trim().split('\n');
    const size = (r: string) => execFileSync('git', ['diff-tree', '-p', `${r}^`, r], { cwd: repo, maxBuffer: 1 << 28 }).length;
    const big = revs.reduce((a, b) => (size(a) >= size(b) ? a : b));
    await using pair = await connect({ repositories: [dir.path] });
    const t0 = performance.now();
    const whole = text(await show(pair, repo, big));
    console.error(`git_show ${big.slice(0, 8)} (${whole.length} chars): ours ${(performance.now() - t0).toFixed(0)} ms`);
    let cursor: string | undefined;
    let joined = '';
    let pages = 0;
    do {
      const res = await show(pair, repo, big, { max_bytes: 4096, ...(cursor ? { cursor } : {}) });
      const sc = res.structuredContent as { truncated: boolean; next_cursor?: string };
      let t = text(res);
      if (pages > 0) t = t.slice('(continued)\n'.length);
      if (sc.truncated) t = t.slice(0, t.lastIndexOf('\n\n[Output truncated'));
      joined += t;
      cursor = sc.next_cursor;
      pages++;
    } while (cursor);
    expect(pages).toBeGreaterThan(1);
    expect(joined).toBe(whole);
  }, 120_000);
});
