/**
 * The reference's leading-dash cases (§6.11 #33, #37, #40–#43) for the history and refs tools: the exact
 * guard texts, and nothing created or changed (refs, HEAD, index, work tree, no stray files).
 */
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { connect, gitRepo, type RepoFixture, text } from './helpers.js';

function state(fx: RepoFixture) {
  return {
    refs: fx.git('for-each-ref'),
    head: fx.git('rev-parse', 'HEAD').trim(),
    symbolic: fx.git('symbolic-ref', 'HEAD').trim(),
    index: fx.git('ls-files', '-s'),
    status: fx.git('status', '--porcelain=v1', '-uall', '--ignored'),
    top: readdirSync(fx.repo).sort(),
    outside: readdirSync(fx.path).sort(),
  };
}

const wrap = (what: string, value: string) => `Ref 'Invalid ${what}: '${value}' - cannot start with '-'' did not resolve to an object`;

describe('leading-dash values are refused before anything runs', () => {
  it('git_checkout: --help, --orphan=evil, -f (#33)', async () => {
    using fx = gitRepo();
    fx.git('branch', 'test-branch');
    const before = state(fx);
    await using pair = await connect({ repositories: [fx.path] });
    for (const value of ['--help', '--orphan=evil', '-f']) {
      const res = await pair.client.callTool({ name: 'git_checkout', arguments: { repo_path: fx.repo, branch_name: value } });
      expect(res.isError).toBe(true);
      expect(text(res)).toBe(wrap('branch name', value));
    }
    expect(state(fx)).toEqual(before);
  });

  it('git_checkout with a ref file literally named --orphan=evil (#37)', async () => {
    using fx = gitRepo();
    const head = fx.git('rev-parse', 'HEAD').trim();
    writeFileSync(join(fx.repo, '.git/refs/heads/--orphan=evil'), `${head}\n`);
    const before = state(fx);
    await using pair = await connect({ repositories: [fx.path] });
    const res = await pair.client.callTool({ name: 'git_checkout', arguments: { repo_path: fx.repo, branch_name: '--orphan=evil' } });
    expect(res.isError).toBe(true);
    expect(text(res)).toBe(wrap('branch name', '--orphan=evil'));
    expect(state(fx)).toEqual(before);
  });

  it('git_create_branch: --track=evil, -f as name (#40) and as base (#41)', async () => {
    using fx = gitRepo();
    const before = state(fx);
    await using pair = await connect({ repositories: [fx.path] });
    for (const value of ['--track=evil', '-f']) {
      const res = await pair.client.callTool({ name: 'git_create_branch', arguments: { repo_path: fx.repo, branch_name: value } });
      expect(res.isError).toBe(true);
      expect(text(res)).toBe(wrap('branch name', value));
    }
    const res = await pair.client.callTool({
      name: 'git_create_branch',
      arguments: { repo_path: fx.repo, branch_name: 'new-branch', base_branch: '--track=evil' },
    });
    expect(res.isError).toBe(true);
    expect(text(res)).toBe(wrap('base branch', '--track=evil'));
    expect(state(fx)).toEqual(before);
  });

  it('git_log: start_timestamp / end_timestamp --exec=evil (#42), plain ValueError text', async () => {
    using fx = gitRepo();
    const before = state(fx);
    await using pair = await connect({ repositories: [fx.path] });
    for (const field of ['start_timestamp', 'end_timestamp']) {
      const res = await pair.client.callTool({ name: 'git_log', arguments: { repo_path: fx.repo, [field]: '--exec=evil' } });
      expect(res.isError).toBe(true);
      expect(text(res)).toBe(`Invalid ${field}: '--exec=evil' - cannot start with '-'`);
    }
    expect(state(fx)).toEqual(before);
  });

  it('git_branch: contains / not_contains --exec=evil (#43)', async () => {
    using fx = gitRepo();
    const before = state(fx);
    await using pair = await connect({ repositories: [fx.path] });
    const a = await pair.client.callTool({
      name: 'git_branch',
      arguments: { repo_path: fx.repo, branch_type: 'local', contains: '--exec=evil' },
    });
    expect(a.isError).toBe(true);
    expect(text(a)).toBe(wrap('contains value', '--exec=evil'));
    const b = await pair.client.callTool({
      name: 'git_branch',
      arguments: { repo_path: fx.repo, branch_type: 'local', not_contains: '--exec=evil' },
    });
    expect(b.isError).toBe(true);
    expect(text(b)).toBe(wrap('not_contains value', '--exec=evil'));
    expect(state(fx)).toEqual(before);
  });

  it('the new tools refuse dash-leading names the same way (git_tag, git_merge)', async () => {
    using fx = gitRepo();
    const before = state(fx);
    await using pair = await connect({ repositories: [fx.path] });
    const calls = [
      { name: 'git_tag', arguments: { repo_path: fx.repo, name: '--delete' } },
      { name: 'git_tag', arguments: { repo_path: fx.repo, name: 'ok', target: '--output=x' } },
      { name: 'git_merge', arguments: { repo_path: fx.repo, branch: '--output=x' } },
    ];
    for (const call of calls) {
      const res = await pair.client.callTool(call);
      expect(res.isError, JSON.stringify(call)).toBe(true);
      expect(text(res)).toMatch(/^Ref 'Invalid (tag name|target|branch): '-/);
    }
    expect(state(fx)).toEqual(before);
  });
});
