/**
 * git_fetch, git_pull, git_push against a real repository served over smart HTTP on 127.0.0.1
 * (`git http-backend` as CGI behind node:http, ./gitHttpServer.ts), through the network policy of @mcpkit/net.
 * What the network policy refuses, credentials and the proxy: ./remotePolicy.test.ts.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { silentLogger } from '@mcpkit/protocol-core';
import { describe, expect, it } from 'vitest';
import { createRemoteAccess } from '../src/engine/remote/http.js';
import { connect, git, hasGit, write } from './helpers.js';
import { remoteFixture } from './remoteFixture.js';

describe.skipIf(!hasGit)('remote tools over smart HTTP on loopback', () => {
  const fx = remoteFixture();
  const { cli, allowLoopback, access, call, upstreamCommit } = fx;

  it('offers the network tools only with remote access', async () => {
    await using without = await connect({ repositories: [fx.work.path] });
    const names = (await without.client.listTools()).tools.map((t) => t.name);
    expect(names).not.toContain('git_fetch');
    expect(names).not.toContain('git_pull');
    expect(names).not.toContain('git_push');
    await using withRemote = await connect({ repositories: [fx.work.path], remote: access() });
    const tools = (await withRemote.client.listTools()).tools;
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect(byName.get('git_fetch')?.annotations).toMatchObject({ openWorldHint: true, destructiveHint: false, readOnlyHint: false });
    expect(byName.get('git_pull')?.annotations).toMatchObject({ openWorldHint: true, destructiveHint: true });
    expect(byName.get('git_push')?.annotations).toMatchObject({ openWorldHint: true, destructiveHint: true });
  });

  it('git_fetch brings new commits into origin/master and leaves the branch and work tree alone', async () => {
    const before = cli(fx.repo, 'rev-parse', 'HEAD');
    const next = upstreamCommit('test.txt', 'changed upstream\n');
    const { res, text: out, structured } = await call(access(), 'git_fetch', {});
    expect(res.isError, out).toBeFalsy();
    expect(out).toBe(`Fetched origin: master ${before.slice(0, 7)}..${next.slice(0, 7)}`);
    expect(cli(fx.repo, 'rev-parse', 'origin/master')).toBe(next);
    expect(cli(fx.repo, 'rev-parse', 'HEAD')).toBe(before);
    expect(readFileSync(join(fx.repo, 'test.txt'), 'utf8')).toBe('test\n');
    expect(structured?.updated).toEqual([{ ref: 'refs/remotes/origin/master', name: 'master', old: before, new: next }]);
    // The CLI reads what isomorphic-git wrote (the new pack included).
    expect(cli(fx.repo, 'log', '-1', '--format=%s', 'origin/master')).toBe('upstream test.txt');
    const again = await call(access(), 'git_fetch', {});
    expect(again.text).toBe('Fetched origin: already up to date');
  });

  it('git_pull fast-forwards the branch and updates the work tree, keeping unrelated local changes', async () => {
    const before = cli(fx.repo, 'rev-parse', 'HEAD');
    const next = upstreamCommit('test.txt', 'pulled content\n');
    write(fx.repo, { 'other.txt': 'local edit\n' });
    const { res, text: out, structured } = await call(access(), 'git_pull', {});
    expect(res.isError, out).toBeFalsy();
    expect(out).toMatch(
      new RegExp(`^Pulled origin/master into master: fast-forward ${before.slice(0, 7)}\\.\\.${next.slice(0, 7)}, 1 file updated`),
    );
    expect(structured).toMatchObject({ result: 'fast-forward', old: before, new: next, files: ['test.txt'] });
    expect(cli(fx.repo, 'rev-parse', 'HEAD')).toBe(next);
    expect(readFileSync(join(fx.repo, 'test.txt'), 'utf8')).toBe('pulled content\n');
    expect(readFileSync(join(fx.repo, 'other.txt'), 'utf8')).toBe('local edit\n');
    expect(cli(fx.repo, 'status', '--porcelain')).toBe('M other.txt');
    const again = await call(access(), 'git_pull', {});
    expect(again.text).toBe('Already up to date.');
  });

  it('git_pull refuses when local changes would be overwritten, changing nothing', async () => {
    const before = cli(fx.repo, 'rev-parse', 'HEAD');
    upstreamCommit('test.txt', 'upstream\n');
    write(fx.repo, { 'test.txt': 'mine\n' });
    const { res, text: out } = await call(access(), 'git_pull', {});
    expect(res.isError).toBe(true);
    expect(out).toContain('would be overwritten');
    expect(out).toContain('\ttest.txt');
    expect(cli(fx.repo, 'rev-parse', 'HEAD')).toBe(before);
    expect(readFileSync(join(fx.repo, 'test.txt'), 'utf8')).toBe('mine\n');
    expect(cli(fx.repo, 'status', '--porcelain')).toBe('M test.txt');
  });

  it('git_pull makes a merge commit for diverged, non-conflicting histories; a conflict changes nothing', async () => {
    cli(fx.repo, 'config', 'user.name', 'Merger');
    cli(fx.repo, 'config', 'user.email', 'merger@example.com');
    const theirs = upstreamCommit('test.txt', 'upstream side\n');
    write(fx.repo, { 'local.txt': 'local side\n' });
    cli(fx.repo, 'add', 'local.txt');
    cli(fx.repo, 'commit', '-q', '-m', 'local commit');
    const ours = cli(fx.repo, 'rev-parse', 'HEAD');
    const merged = await call(access(), 'git_pull', {});
    expect(merged.res.isError, merged.text).toBeFalsy();
    expect(merged.structured).toMatchObject({ result: 'merge', old: ours });
    expect(cli(fx.repo, 'log', '-1', '--format=%P')).toBe(`${ours} ${theirs}`);
    expect(readFileSync(join(fx.repo, 'test.txt'), 'utf8')).toBe('upstream side\n');
    expect(cli(fx.repo, 'status', '--porcelain')).toBe('');

    // Now both sides change the same line.
    upstreamCommit('other.txt', 'upstream other\n');
    write(fx.repo, { 'other.txt': 'local other\n' });
    cli(fx.repo, 'commit', '-q', '-am', 'local other');
    const head = cli(fx.repo, 'rev-parse', 'HEAD');
    const conflict = await call(access(), 'git_pull', {});
    expect(conflict.res.isError).toBe(true);
    expect(conflict.text).toContain('conflicts');
    expect(conflict.text).toContain('nothing was changed');
    expect(cli(fx.repo, 'rev-parse', 'HEAD')).toBe(head);
    expect(cli(fx.repo, 'status', '--porcelain')).toBe('');
    expect(readFileSync(join(fx.repo, 'other.txt'), 'utf8')).toBe('local other\n');
  });

  it('git_push sends a new commit that the server repository then has', async () => {
    const old = cli(fx.repo, 'rev-parse', 'HEAD');
    write(fx.repo, { 'pushed.txt': 'pushed\n' });
    cli(fx.repo, 'add', 'pushed.txt');
    cli(fx.repo, 'commit', '-q', '-m', 'pushed commit');
    const head = cli(fx.repo, 'rev-parse', 'HEAD');
    const { res, text: out, structured } = await call(access(), 'git_push', {});
    expect(res.isError, out).toBeFalsy();
    expect(out).toBe(`Pushed master to origin: ${old.slice(0, 7)}..${head.slice(0, 7)}`);
    expect(structured).toMatchObject({ ref: 'refs/heads/master', old, new: head, result: 'fast-forward' });
    expect(git(fx.served.path, ['--git-dir', fx.bare, 'log', '-1', '--format=%H %s', 'master']).trim()).toBe(`${head} pushed commit`);
    expect(cli(fx.repo, 'rev-parse', 'origin/master')).toBe(head);
    // A new branch.
    cli(fx.repo, 'branch', 'feature');
    const feature = await call(access(), 'git_push', { branch: 'feature' });
    expect(feature.text).toBe(`Pushed feature to origin: new branch ${head.slice(0, 7)}`);
    expect(git(fx.served.path, ['--git-dir', fx.bare, 'rev-parse', 'feature']).trim()).toBe(head);
  });

  it('git_push refuses a non-fast-forward unless force is true', async () => {
    const theirs = upstreamCommit('test.txt', 'upstream\n');
    write(fx.repo, { 'mine.txt': 'mine\n' });
    cli(fx.repo, 'add', 'mine.txt');
    cli(fx.repo, 'commit', '-q', '-m', 'mine');
    const mine = cli(fx.repo, 'rev-parse', 'HEAD');
    const refused = await call(access(), 'git_push', {});
    expect(refused.res.isError).toBe(true);
    expect(refused.text).toContain('non-fast-forward');
    expect(git(fx.served.path, ['--git-dir', fx.bare, 'rev-parse', 'master']).trim()).toBe(theirs);
    const forced = await call(access(), 'git_push', { force: true });
    expect(forced.res.isError, forced.text).toBeFalsy();
    expect(forced.text).toBe(`Pushed master to origin: forced update ${theirs.slice(0, 7)}...${mine.slice(0, 7)}`);
    expect(git(fx.served.path, ['--git-dir', fx.bare, 'rev-parse', 'master']).trim()).toBe(mine);
  });

  it('git_fetch with ref fetches that branch only; prune removes branches gone from the remote', async () => {
    cli(fx.upstream, 'push', '-q', 'origin', 'HEAD:refs/heads/topic');
    cli(fx.upstream, 'push', '-q', 'origin', 'HEAD:refs/heads/other');
    const one = await call(access(), 'git_fetch', { ref: 'topic' });
    expect(one.res.isError, one.text).toBeFalsy();
    expect(one.text).toMatch(/^Fetched origin: topic \(new\) [0-9a-f]{7}$/);
    expect(cli(fx.repo, 'branch', '-r')).not.toContain('origin/other');
    await call(access(), 'git_fetch', {});
    expect(cli(fx.repo, 'branch', '-r')).toContain('origin/other');
    cli(fx.upstream, 'push', '-q', 'origin', ':refs/heads/other');
    const pruned = await call(access(), 'git_fetch', { prune: true });
    expect(pruned.text).toBe('Fetched origin: other (deleted)');
    expect(cli(fx.repo, 'branch', '-r')).not.toContain('origin/other');
  });

  it('bounds the response size, leaving refs unchanged', async () => {
    upstreamCommit('big.txt', randomBytes(50_000).toString('hex'));
    const refs = cli(fx.repo, 'for-each-ref');
    const small = createRemoteAccess({ allowHost: allowLoopback() }, {}, silentLogger, { maxBytes: 2_000 });
    const { res, text: out } = await call(small, 'git_fetch', {});
    expect(res.isError).toBe(true);
    expect(out).toContain('limit');
    expect(cli(fx.repo, 'for-each-ref')).toBe(refs);
  });
});
