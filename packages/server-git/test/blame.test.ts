/**
 * git_blame through a real SDK client, compared with `git blame <rev> -- <file>` (default format;
 * GitPython-style, the last newline is stripped) and `git blame --porcelain` for the data.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { connect, git, gitRepo, hasGit, honoBundle, type RepoFixture, tempDir, text, write } from './helpers.js';

const strip = (s: string) => (s.endsWith('\n') ? s.slice(0, -1) : s);

function commitAs(fx: RepoFixture, who: string, when: string, message: string): void {
  fx.git('add', '-A');
  git(fx.repo, ['commit', '-q', '-m', message], {
    GIT_AUTHOR_NAME: who,
    GIT_AUTHOR_EMAIL: `${who.toLowerCase().replace(/\s/g, '.')}@example.com`,
    GIT_AUTHOR_DATE: when,
    GIT_COMMITTER_DATE: when,
  });
}

/** Porcelain blame: the commit of each line. */
function porcelainCommits(fx: RepoFixture, args: string[]): string[] {
  const out = fx.git('blame', '--porcelain', ...args);
  return out
    .split('\n')
    .filter((l) => /^[0-9a-f]{40} \d+ \d+/.test(l))
    .map((l) => l.slice(0, 40));
}

function historyRepo(): RepoFixture {
  const fx = gitRepo();
  write(fx.repo, { 'src/code.js': 'function a() {\n  return 1;\n}\n\nfunction b() {\n  return 2;\n}\n' });
  commitAs(fx, 'Alice', '2024-02-01T10:00:00+01:00', 'add code');
  write(fx.repo, { 'src/code.js': 'function a() {\n  return 1;\n}\n\nfunction b() {\n  return 22;\n}\n\nfunction c() {\n  return 3;\n}' });
  commitAs(fx, 'Bob Longname', '2024-03-05T09:30:00-05:00', 'change b, add c');
  fx.git('checkout', '-q', '-b', 'side');
  write(fx.repo, {
    'src/code.js': '// header\nfunction a() {\n  return 1;\n}\n\nfunction b() {\n  return 22;\n}\n\nfunction c() {\n  return 3;\n}',
  });
  commitAs(fx, 'Carol', '2024-03-06T12:00:00+00:00', 'header on side');
  fx.git('checkout', '-q', 'master');
  write(fx.repo, { 'src/code.js': 'function a() {\n  return 11;\n}\n\nfunction b() {\n  return 22;\n}\n\nfunction c() {\n  return 3;\n}' });
  commitAs(fx, 'Alice', '2024-03-07T08:00:00+01:00', 'a returns 11');
  git(fx.repo, ['merge', '-q', '--no-edit', 'side'], {
    GIT_AUTHOR_DATE: '2024-03-08T08:00:00+01:00',
    GIT_COMMITTER_DATE: '2024-03-08T08:00:00+01:00',
  });
  fx.git('mv', 'src/code.js', 'src/renamed.js');
  commitAs(fx, 'Dave', '2024-04-01T00:00:00+02:00', 'rename');
  write(fx.repo, {
    'src/renamed.js':
      '// header\nfunction a() {\n  return 11;\n}\n\nfunction b() {\n  return 22;\n}\n\nfunction c() {\n  return 3;\n}\n// tail\n',
  });
  commitAs(fx, 'Eve', '2024-04-02T00:00:00+02:00', 'tail');
  return fx;
}

async function blame(pair: Awaited<ReturnType<typeof connect>>, args: Record<string, unknown>) {
  return pair.client.callTool({ name: 'git_blame', arguments: args });
}

describe('git_blame', () => {
  it.skipIf(!hasGit)('matches git blame across edits, a merge, a rename and a missing final newline', async () => {
    using fx = historyRepo();
    await using pair = await connect({ repositories: [fx.path] });
    for (const [file, rev] of [
      ['src/renamed.js', undefined],
      ['src/renamed.js', 'HEAD~1'],
      ['src/code.js', 'HEAD~2'],
      ['src/code.js', 'side'],
      ['test.txt', undefined],
    ] as const) {
      const res = await blame(pair, { repo_path: fx.repo, file, ...(rev ? { rev } : {}) });
      expect(res.isError ?? false).toBe(false);
      expect(text(res)).toBe(strip(fx.git('blame', rev ?? 'HEAD', '--', file)));
      const lines = (res.structuredContent as { lines: { commit: string }[] }).lines;
      expect(lines.map((l) => l.commit)).toEqual(porcelainCommits(fx, [rev ?? 'HEAD', '--', file]));
    }
  });

  it.skipIf(!hasGit)('blames a line range like git blame -L, with the data of each line', async () => {
    using fx = historyRepo();
    await using pair = await connect({ repositories: [fx.path] });
    const res = await blame(pair, { repo_path: fx.repo, file: 'src/renamed.js', start_line: 2, end_line: 7 });
    expect(text(res)).toBe(strip(fx.git('blame', '-L', '2,7', 'HEAD', '--', 'src/renamed.js')));
    const lines = (res.structuredContent as { lines: Record<string, unknown>[] }).lines;
    expect(lines).toHaveLength(6);
    expect(lines[0]).toMatchObject({
      line: 2,
      orig_line: 1,
      author: 'Alice',
      author_email: 'alice@example.com',
      path: 'src/code.js',
      content: 'function a() {',
    });
    expect(lines[1]).toMatchObject({ line: 3, author: 'Alice', summary: 'a returns 11', author_tz: '+0100', content: '  return 11;' });
    expect(lines[5]).toMatchObject({
      line: 7,
      author: 'Bob Longname',
      content: '  return 22;',
      author_time: Date.parse('2024-03-05T09:30:00-05:00') / 1000,
      author_tz: '-0500',
    });
    const tail = await blame(pair, { repo_path: fx.repo, file: 'src/renamed.js', start_line: 12 });
    expect(text(tail)).toBe(strip(fx.git('blame', '-L', '12,', 'HEAD', '--', 'src/renamed.js')));
  });

  it.skipIf(!hasGit)('refuses missing files, ranges past the end, paths outside and leading dashes', async () => {
    using fx = historyRepo();
    await using pair = await connect({ repositories: [fx.path] });
    const missing = await blame(pair, { repo_path: fx.repo, file: 'nope.txt' });
    expect(missing.isError).toBe(true);
    expect(text(missing)).toBe("no such path 'nope.txt' in HEAD");
    const past = await blame(pair, { repo_path: fx.repo, file: 'src/renamed.js', start_line: 99 });
    expect(text(past)).toBe('file src/renamed.js has only 13 lines');
    const outside = await blame(pair, { repo_path: fx.repo, file: '../x.txt' });
    expect(text(outside)).toContain('outside the repository');
    const dash = await blame(pair, { repo_path: fx.repo, file: 'test.txt', rev: '--output=x' });
    expect(text(dash)).toBe("Ref 'Invalid revision: '--output=x' - cannot start with '-'' did not resolve to an object");
    expect(text(await blame(pair, { repo_path: fx.repo, file: 'test.txt', rev: 'nope' }))).toBe("Ref 'nope' did not resolve to an object");
  });
});

const bundle = honoBundle ?? '';

describe.skipIf(!hasGit || !honoBundle)('git_blame on a real repository (hono)', () => {
  it('matches git blame for files with long histories', async () => {
    using dir = tempDir();
    const repo = join(dir.path, 'hono');
    execFileSync('git', ['clone', '-q', bundle, repo], { stdio: 'ignore' });
    await using pair = await connect({ repositories: [dir.path] });
    for (const [file, range] of [
      ['src/hono-base.ts', null],
      ['src/context.ts', [100, 140]],
      ['src/hono-base.ts', null],
    ] as const) {
      const t0 = performance.now();
      const res = await blame(pair, { repo_path: repo, file, ...(range ? { start_line: range[0], end_line: range[1] } : {}) });
      const ours = performance.now() - t0;
      const g0 = performance.now();
      const expected = execFileSync('git', ['blame', ...(range ? ['-L', `${range[0]},${range[1]}`] : []), 'HEAD', '--', file], {
        cwd: repo,
        encoding: 'utf8',
        maxBuffer: 1 << 28,
      });
      const theirs = performance.now() - g0;
      expect(text(res)).toBe(strip(expected));
      console.error(`git_blame ${file}${range ? ` -L ${range}` : ''}: ours ${ours.toFixed(0)} ms, git CLI ${theirs.toFixed(0)} ms`);
    }
  }, 120_000);
});
