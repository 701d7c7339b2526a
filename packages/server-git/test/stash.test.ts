import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { connect, gitRepo, hasGit, text, write } from './helpers.js';

describe('git_stash / git_stash_list', () => {
  it.skipIf(!hasGit)("push saves staged and unstaged changes in git's layout; pop restores them", async () => {
    using fx = gitRepo();
    write(fx.repo, { 'other.txt': 'o' });
    fx.git('add', 'other.txt');
    fx.git('commit', '-q', '-m', 'second commit');
    write(fx.repo, { 'test.txt': 'edited', 'staged-new.txt': 'new file', 'untracked.txt': 'u' });
    fx.git('add', 'staged-new.txt');
    fx.git('rm', '-q', 'other.txt');
    const statusBefore = fx.git('status', '--porcelain');
    await using pair = await connect({ repositories: [fx.path] });
    const push = await pair.client.callTool({ name: 'git_stash', arguments: { repo_path: fx.repo, action: 'push' } });
    expect(push.isError, text(push)).toBeFalsy();
    const abbrev = fx.git('rev-parse', '--short', 'HEAD').trim();
    expect(text(push)).toBe(`Saved working directory and index state WIP on master: ${abbrev} second commit`);
    // Clean except the untracked file, like git stash.
    expect(fx.git('status', '--porcelain')).toBe('?? untracked.txt\n');
    expect(readFileSync(join(fx.repo, 'test.txt'), 'utf8')).toBe('test');
    // The git CLI sees the same entry, with git's structure (W = HEAD + I).
    expect(fx.git('stash', 'list')).toBe(`stash@{0}: WIP on master: ${abbrev} second commit\n`);
    expect(fx.git('rev-list', '--parents', '-1', 'stash@{0}').trim().split(' ').length).toBe(3);
    expect(fx.git('show', '--format=', '--name-status', 'stash@{0}^2')).toBe('D\tother.txt\nA\tstaged-new.txt\n');
    expect(fx.git('diff', '--name-status', 'HEAD', 'stash@{0}')).toBe('D\tother.txt\nA\tstaged-new.txt\nM\ttest.txt\n');
    const list = await pair.client.callTool({ name: 'git_stash_list', arguments: { repo_path: fx.repo } });
    expect(text(list)).toBe(fx.git('stash', 'list').replace(/\n$/, ''));

    const pop = await pair.client.callTool({ name: 'git_stash', arguments: { repo_path: fx.repo, action: 'pop' } });
    expect(pop.isError, text(pop)).toBeFalsy();
    expect(text(pop)).toMatch(/Dropped refs\/stash@\{0\} \([0-9a-f]{40}\)$/);
    expect(readFileSync(join(fx.repo, 'test.txt'), 'utf8')).toBe('edited');
    expect(readFileSync(join(fx.repo, 'staged-new.txt'), 'utf8')).toBe('new file');
    // git stash pop (no --index): new files staged again, the rest unstaged.
    expect(fx.git('status', '--porcelain')).toBe(' D other.txt\nA  staged-new.txt\n M test.txt\n?? untracked.txt\n');
    expect(statusBefore).toContain('D  other.txt');
    expect(fx.git('stash', 'list')).toBe('');
  });

  it.skipIf(!hasGit)('keeps a stack with messages that git stash list and git stash pop agree with', async () => {
    using fx = gitRepo();
    await using pair = await connect({ repositories: [fx.path] });
    write(fx.repo, { 'test.txt': 'one' });
    await pair.client.callTool({ name: 'git_stash', arguments: { repo_path: fx.repo, action: 'push', message: 'first try' } });
    write(fx.repo, { 'test.txt': 'two' });
    fx.git('stash', 'push', '-q', '-m', 'made by git');
    write(fx.repo, { 'test.txt': 'three' });
    await pair.client.callTool({ name: 'git_stash', arguments: { repo_path: fx.repo, action: 'push' } });
    const list = await pair.client.callTool({ name: 'git_stash_list', arguments: { repo_path: fx.repo } });
    expect(text(list)).toBe(fx.git('stash', 'list').replace(/\n$/, ''));
    expect(text(list)).toMatch(
      /^stash@\{0\}: WIP on master: [0-9a-f]{7} initial commit\nstash@\{1\}: On master: made by git\nstash@\{2\}: On master: first try$/,
    );
    // git pops ours, we pop git's, git pops ours.
    fx.git('stash', 'pop', '-q');
    expect(readFileSync(join(fx.repo, 'test.txt'), 'utf8')).toBe('three');
    fx.git('checkout', '-q', '--', 'test.txt');
    const pop = await pair.client.callTool({ name: 'git_stash', arguments: { repo_path: fx.repo, action: 'pop' } });
    expect(pop.isError, text(pop)).toBeFalsy();
    expect(readFileSync(join(fx.repo, 'test.txt'), 'utf8')).toBe('two');
    fx.git('checkout', '-q', '--', 'test.txt');
    fx.git('stash', 'pop', '-q');
    expect(readFileSync(join(fx.repo, 'test.txt'), 'utf8')).toBe('one');
    expect(fx.git('stash', 'list')).toBe('');
  });

  it.skipIf(!hasGit)('pop refuses (keeping the entry) when local changes touch the stashed files', async () => {
    using fx = gitRepo();
    await using pair = await connect({ repositories: [fx.path] });
    write(fx.repo, { 'test.txt': 'stashed' });
    await pair.client.callTool({ name: 'git_stash', arguments: { repo_path: fx.repo, action: 'push' } });
    write(fx.repo, { 'test.txt': 'local again' });
    const res = await pair.client.callTool({ name: 'git_stash', arguments: { repo_path: fx.repo, action: 'pop' } });
    expect(res.isError).toBe(true);
    expect(text(res)).toContain('would be overwritten by merge:\n\ttest.txt');
    expect(readFileSync(join(fx.repo, 'test.txt'), 'utf8')).toBe('local again');
    expect(fx.git('stash', 'list')).toMatch(/^stash@\{0\}: WIP on master/);
  });

  it('push with nothing to save, pop with no stash: errors, nothing written', async () => {
    using fx = gitRepo();
    await using pair = await connect({ repositories: [fx.path] });
    const push = await pair.client.callTool({ name: 'git_stash', arguments: { repo_path: fx.repo, action: 'push' } });
    expect(push.isError).toBe(true);
    expect(text(push)).toBe('No local changes to save');
    const pop = await pair.client.callTool({ name: 'git_stash', arguments: { repo_path: fx.repo, action: 'pop' } });
    expect(pop.isError).toBe(true);
    expect(text(pop)).toBe('No stash entries found.');
    expect(fx.git('for-each-ref')).not.toContain('refs/stash');
    const list = await pair.client.callTool({ name: 'git_stash_list', arguments: { repo_path: fx.repo } });
    expect(text(list)).toBe('');
  });
});
