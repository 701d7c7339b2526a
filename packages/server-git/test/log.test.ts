import { execFileSync, spawnSync } from 'node:child_process';
import { createLogger } from '@mcpkit/protocol-core';
import { describe, expect, it, vi } from 'vitest';
import type { GitContext } from '../src/engine/context.js';
import { DEFAULT_OBJECT_LIMITS } from '../src/engine/git/objectLimits.js';
import { revList } from '../src/engine/log/commits.js';
import { parseGitDate } from '../src/engine/log/dates.js';
import { createRepoCache, openRepo } from '../src/engine/repo.js';
import { connect, gitEnv, gitRepo, hasGit, type RepoFixture, text, write } from './helpers.js';

/** Commits with chosen dates and messages (author date = committer date unless given). */
function commit(fx: RepoFixture, file: string, message: string, date: string, authorDate = date, name = 'Test User'): string {
  write(fx.repo, { [file]: `${message}\n${date}\n` });
  fx.git('add', file);
  spawnSync('git', ['commit', '-q', '--allow-empty', '-m', message], {
    cwd: fx.repo,
    env: gitEnv({ GIT_AUTHOR_DATE: authorDate, GIT_COMMITTER_DATE: date, GIT_AUTHOR_NAME: name }),
  });
  return fx.git('rev-parse', 'HEAD').trim();
}

/** `n` commits in one line (git fast-import; empty trees), one second apart in November 2023. */
function linearHistory(n: number): RepoFixture {
  const fx = gitRepo({ initial: false });
  const script = Array.from({ length: n }, (_, i) => {
    const message = `commit ${i}\n`;
    const from = i > 0 ? `from :${i}\n` : '';
    return `commit refs/heads/master\nmark :${i + 1}\ncommitter Test User <test@example.com> ${1_700_000_000 + i} +0000\ndata ${message.length}\n${message}${from}\n`;
  }).join('');
  execFileSync('git', ['fast-import', '--quiet'], { cwd: fx.repo, env: gitEnv(), input: script });
  return fx;
}

/** A history with a merge and out-of-order dates, so rev-list order is not first-parent order. */
function history(): RepoFixture {
  const fx = gitRepo();
  fx.git('checkout', '-q', '-b', 'side');
  commit(fx, 's1.txt', 'side one', '2024-01-16T10:00:00+00:00');
  commit(fx, 's2.txt', "side two with 'quotes'\n\nbody line\n", '2024-01-18T10:00:00+00:00', '2024-01-10T08:00:00-05:00', 'Ünïcode Name');
  fx.git('checkout', '-q', 'master');
  commit(fx, 'm1.txt', 'main one', '2024-01-17T10:00:00+02:00');
  spawnSync('git', ['merge', '-q', '--no-ff', '-m', 'merge side', 'side'], {
    cwd: fx.repo,
    env: gitEnv({ GIT_COMMITTER_DATE: '2024-01-19T00:00:00Z', GIT_AUTHOR_DATE: '2024-01-19T00:00:00Z' }),
  });
  commit(fx, 'm2.txt', 'main two', '2024-01-20T10:00:00+05:30');
  return fx;
}

/** What the reference prints without timestamps, computed from git's own view of the commits. */
function pythonEntries(fx: RepoFixture, n: number): string[] {
  const oids = fx.git('rev-list', `--max-count=${n}`, 'HEAD').trim().split('\n').filter(Boolean);
  return oids.map((oid) => {
    const [name, email, iso] = fx.git('show', '-s', '--format=%an%n%ae%n%aI', oid).trim().split('\n') as [string, string, string];
    const message = fx.git('cat-file', 'commit', oid).split('\n\n').slice(1).join('\n\n');
    const date = iso.replace('T', ' ').replace(/Z$/, '+00:00');
    const repr = `'${message.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n')}'`;
    const msg = message.includes("'") && !message.includes('"') ? `"${message.replace(/\\/g, '\\\\').replace(/\n/g, '\\n')}"` : repr;
    return `Commit: '${oid}'\nAuthor: <git.Actor "${name} <${email}>">\nDate: ${date}\nMessage: ${msg}\n`;
  });
}

/** The reference's date-filtered text, computed from the real git CLI output the way the reference does. */
function referenceFiltered(fx: RepoFixture, args: string[], maxCount: number): string {
  let out = fx.git('log', ...args, '--format=%H%n%an%n%ad%n%s%n');
  if (out.endsWith('\n')) out = out.slice(0, -1);
  const lines = out.split('\n');
  const log: string[] = [];
  for (let i = 0; i < lines.length; i += 4) {
    if (i + 3 < lines.length && log.length < maxCount) {
      log.push(`Commit: ${lines[i]}\nAuthor: ${lines[i + 1]}\nDate: ${lines[i + 2]}\nMessage: ${lines[i + 3]}\n`);
    }
  }
  return `Commit history:\n${log.join('\n')}`;
}

describe('git_log', () => {
  it.skipIf(!hasGit)('prints the reference text in git rev-list order (all parents, by commit date)', async () => {
    using fx = history();
    await using pair = await connect({ repositories: [fx.path] });
    for (const n of [2, 10, 3]) {
      const res = await pair.client.callTool({ name: 'git_log', arguments: { repo_path: fx.repo, max_count: n } });
      expect(res.isError).toBeFalsy();
      expect(text(res)).toBe(`Commit history:\n${pythonEntries(fx, n).join('\n')}`);
      const data = res.structuredContent as { commits: { oid: string; parents: string[]; author: { date: string } }[] };
      expect(data.commits.map((c) => c.oid).join('\n')).toBe(fx.git('rev-list', `--max-count=${n}`, 'HEAD').trim());
    }
  });

  it('defaults to 10 and shows the initial commit with the reference layout', async () => {
    using fx = gitRepo();
    await using pair = await connect({ repositories: [fx.path] });
    const res = await pair.client.callTool({ name: 'git_log', arguments: { repo_path: fx.repo } });
    const oid = fx.git('rev-parse', 'HEAD').trim();
    expect(text(res)).toBe(
      `Commit history:\nCommit: '${oid}'\nAuthor: <git.Actor "Test User <test@example.com>">\nDate: 2024-01-15 14:30:25+01:00\nMessage: 'initial commit\\n'\n`,
    );
  });

  it.skipIf(!hasGit)('filters by --since/--until like git and reproduces the reference mis-grouping', async () => {
    using fx = history();
    await using pair = await connect({ repositories: [fx.path] });
    const cases: [string | null, string | null, number][] = [
      ['2024-01-17T00:00:00Z', null, 10],
      [null, '2024-01-18T12:00:00Z', 10],
      ['Jan 16 2024 12:00', 'Jan 19 2024 12:00', 10],
      ['@1705000000', null, 2],
      ['2024-01-20T12:00:00Z', null, 10],
    ];
    for (const [since, until, max] of cases) {
      const args: string[] = [];
      if (since) args.push('--since', since);
      if (until) args.push('--until', until);
      const res = await pair.client.callTool({
        name: 'git_log',
        arguments: { repo_path: fx.repo, max_count: max, start_timestamp: since, end_timestamp: until },
      });
      expect(res.isError, text(res)).toBeFalsy();
      expect(text(res), args.join(' ')).toBe(referenceFiltered(fx, args, max));
      const data = res.structuredContent as { commits: { oid: string }[] };
      const expected = fx.git('rev-list', ...args, `--max-count=${max}`, 'HEAD').trim();
      expect(data.commits.map((c) => c.oid).join('\n'), args.join(' ')).toBe(expected);
    }
  });

  it('shows the shifted second entry the reference documents', async () => {
    using fx = history();
    await using pair = await connect({ repositories: [fx.path] });
    const res = await pair.client.callTool({ name: 'git_log', arguments: { repo_path: fx.repo, start_timestamp: '2024-01-18T12:00:00Z' } });
    const top = fx.git('rev-parse', 'HEAD').trim();
    const second = fx.git('rev-parse', 'HEAD~1').trim();
    expect(text(res)).toBe(
      `Commit history:\nCommit: ${top}\nAuthor: Test User\nDate: Sat Jan 20 10:00:00 2024 +0530\nMessage: main two\n\nCommit: \nAuthor: ${second}\nDate: Test User\nMessage: Fri Jan 19 00:00:00 2024 +0000\n`,
    );
  });

  it('rejects timestamps starting with - (plain ValueError text) and names an unreadable date', async () => {
    using fx = gitRepo();
    await using pair = await connect({ repositories: [fx.path] });
    const a = await pair.client.callTool({ name: 'git_log', arguments: { repo_path: fx.repo, start_timestamp: '--exec=evil' } });
    expect(a.isError).toBe(true);
    expect(text(a)).toBe("Invalid start_timestamp: '--exec=evil' - cannot start with '-'");
    const b = await pair.client.callTool({ name: 'git_log', arguments: { repo_path: fx.repo, end_timestamp: 'the day after' } });
    expect(b.isError).toBe(true);
    expect(text(b)).toMatch(/^Invalid end_timestamp: 'the day after' is not a date/);
  });

  it('pages long logs with max_bytes and cursor, without gaps or repeats', async () => {
    using fx = history();
    await using pair = await connect({ repositories: [fx.path] });
    const all = await pair.client.callTool({ name: 'git_log', arguments: { repo_path: fx.repo, max_count: 100 } });
    const wanted = (all.structuredContent as { commits: { oid: string }[] }).commits.map((c) => c.oid);
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 10; page++) {
      const res = await pair.client.callTool({
        name: 'git_log',
        arguments: { repo_path: fx.repo, max_count: 100, max_bytes: 400, ...(cursor ? { cursor } : {}) },
      });
      const data = res.structuredContent as { commits: { oid: string }[]; next_cursor?: string };
      seen.push(...data.commits.map((c) => c.oid));
      cursor = data.next_cursor;
      if (!cursor) break;
      expect(text(res)).toContain(cursor);
    }
    expect(seen).toEqual(wanted);
    expect(wanted.length).toBe(6);
  });

  it.skipIf(!hasGit)('stops a long walk when the client cancels the call, returning nothing', async () => {
    using fx = linearHistory(500);
    const lines: string[] = [];
    const logger = createLogger({ name: 'git', level: 'info', write: (line) => lines.push(line) });
    await using pair = await connect({ repositories: [fx.path], logger });
    // An end_timestamp before every commit: the walk goes through all of them and finds nothing.
    const args = { repo_path: fx.repo, max_count: 10, end_timestamp: '2001-01-01' };
    const whole = await pair.client.callTool({ name: 'git_log', arguments: args });
    expect(text(whole)).toBe('Commit history:\n');

    const errors: Error[] = [];
    pair.client.onerror = (error) => errors.push(error);
    // Cancelled the moment the request has been handed to the server (a gate on the client transport's send, not a
    // pause): its notifications/cancelled follows it in order, before the walk can have finished.
    const controller = new AbortController();
    const transport = pair.client.transport!;
    const send = transport.send.bind(transport);
    transport.send = async (message, options) => {
      await send(message, options);
      if ('method' in message && message.method === 'tools/call') controller.abort();
    };
    const call = pair.client.callTool({ name: 'git_log', arguments: args }, { signal: controller.signal });
    await expect(call).rejects.toThrow(/abort/i);
    // The cancelled call says so in the log, and no (partial) result reaches the client.
    await vi.waitFor(() => expect(lines.some((l) => l.includes('git_log was cancelled by the client'))).toBe(true));
    await pair.client.ping();
    expect(errors).toEqual([]);
  });

  it.skipIf(!hasGit)('the history walk ends at the next commit once its signal aborts', async () => {
    using fx = linearHistory(200);
    const repo = await openRepo(
      {
        roots: { list: async () => [fx.path] },
        repoCache: createRepoCache(),
        objectLimits: DEFAULT_OBJECT_LIMITS,
      } as unknown as GitContext,
      fx.repo,
    );
    const head = fx.git('rev-parse', 'HEAD').trim();
    const controller = new AbortController();
    let walked = 0;
    for await (const _ of revList(repo, [head], { signal: controller.signal })) {
      walked++;
      if (walked === 5) controller.abort();
    }
    expect(walked).toBe(5);
    let all = 0;
    for await (const _ of revList(repo, [head])) all++;
    expect(all).toBe(200);
  });

  it('says the branch has no commits on an unborn branch', async () => {
    using fx = gitRepo({ initial: false });
    await using pair = await connect({ repositories: [fx.path] });
    const res = await pair.client.callTool({ name: 'git_log', arguments: { repo_path: fx.repo } });
    expect(res.isError).toBe(true);
    expect(text(res)).toBe("Reference at 'refs/heads/master' does not exist");
  });
});

describe('parseGitDate', () => {
  const now = new Date();
  it.skipIf(!hasGit)('agrees with git rev-parse --since for the common forms', () => {
    for (const value of [
      'yesterday',
      'now',
      'today',
      'last week',
      '2 weeks ago',
      '3 months ago',
      '1 year ago',
      '10 days',
      '5.minutes.ago',
      'midnight',
      'noon',
      'Jan 15 2024',
      '15 Jan 2024',
      'January 15, 2024',
      '2024-01-15',
      '2024-01-15T14:30:25',
      '2024-01-15 10:00',
      '2024-01-15T10:00:00Z',
      '2024-01-15T10:00:00+05:30',
      '2024-01-15 10:00 +0500',
      '@1705325425',
      '2024/01/15',
      'Mon Jan 15 14:30:25 2024 +0100',
    ]) {
      const out = spawnSync('git', ['rev-parse', `--since=${value}`], {
        encoding: 'utf8',
        env: gitEnv({ TZ: process.env.TZ ?? 'UTC' }),
      }).stdout;
      const gitSeconds = Number(/--max-age=(\d+)/.exec(out)?.[1]);
      const mine = parseGitDate(value, new Date());
      expect(mine, value).not.toBeNull();
      expect(Math.abs((mine as number) - gitSeconds), value).toBeLessThanOrEqual(2);
    }
  });

  it('returns null for text git would silently read as now', () => {
    expect(parseGitDate('garbage', now)).toBeNull();
    expect(parseGitDate('2024-13-45', now)).toBeNull();
    expect(parseGitDate('', now)).toBeNull();
  });
});

describe('git_log messages as stored', () => {
  it('keeps a message without a final newline as it is (commits made on GitHub have none)', async () => {
    using fx = gitRepo();
    const tree = fx.git('rev-parse', 'HEAD^{tree}').trim();
    const parent = fx.git('rev-parse', 'HEAD').trim();
    const oid = execFileSync('git', ['commit-tree', tree, '-p', parent], {
      cwd: fx.repo,
      env: gitEnv(),
      input: 'Merge pull request #1\n\nno newline at the end',
      encoding: 'utf8',
    }).trim();
    fx.git('update-ref', 'HEAD', oid);
    await using pair = await connect({ repositories: [fx.path] });
    const res = await pair.client.callTool({ name: 'git_log', arguments: { repo_path: fx.repo, max_count: 1 } });
    expect(text(res)).toContain("Message: 'Merge pull request #1\\n\\nno newline at the end'\n");
  });
});
