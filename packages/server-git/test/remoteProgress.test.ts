/**
 * Progress and cancellation of git_fetch and git_pull: a repository with a pack of about 1.6 MB,
 * served by a real smart-HTTP server on 127.0.0.1 that can slow its answers down. A client that sent a
 * progressToken hears how the transfer goes; one that cancels (the SDK sends `notifications/cancelled`)
 * gets the HTTP request aborted (the server sees the connection close mid-answer) and finds every ref,
 * the branch, the index and the work tree as they were.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createLogger, type Logger, silentLogger } from '@mcpkit/protocol-core';
import { connectV2InMemory, type InMemoryPair } from '@mcpkit/protocol-core/testing';
import type { Progress } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createRemoteAccess } from '../src/engine/remote/http.js';
import { createGitServer } from '../src/server.js';
import { type GitHttpServer, serveGit } from './gitHttpServer.js';
import { connect, git, gitEnv, hasGit, type TempDir, tempDir, text, write } from './helpers.js';

/** Files of incompressible bytes in the upstream commits: 400 × 4 KiB. */
const FILES = 400;

/** git's stdout, trimmed, whatever its exit code (`rev-parse --verify --quiet` of a missing ref prints nothing). */
function spawnGit(cwd: string, args: string[]): string {
  return (spawnSync('git', args, { cwd, env: gitEnv(), encoding: 'utf8' }).stdout ?? '').trim();
}

/** Waits on state (a request the served repository saw aborted, a line logged), within the test's own timeout. */
async function until(condition: () => boolean): Promise<void> {
  await vi.waitFor(() => expect(condition()).toBe(true), { timeout: 10_000, interval: 10 });
}

/** A progress notification that says the pack is arriving (more bytes than the ref advertisement). */
function receivingPack(p: Progress): boolean {
  const match = /^Receiving: ([\d.]+) (bytes|KiB|MiB)$/.exec(p.message ?? '');
  return match !== null && (match[2] === 'MiB' || (match[2] === 'KiB' && Number(match[1]) >= 64));
}

/** A logger that keeps its lines: a cancelled call logs when it has stopped and put things back. */
function keptLog(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  return { logger: createLogger({ name: 'git', level: 'info', write: (line) => lines.push(line) }), lines };
}

/** Errors the client saw; a response to a request it cancelled shows up here ("unknown message ID"). */
function clientErrors(pair: InMemoryPair): Error[] {
  const errors: Error[] = [];
  pair.client.onerror = (error) => errors.push(error);
  return errors;
}

describe.skipIf(!hasGit)('progress and cancellation of the network tools', () => {
  let served: TempDir;
  let http: GitHttpServer;
  let base: string;
  let head: string;
  let work: TempDir;
  let repo: string;

  const cli = (cwd: string, ...args: string[]) => git(cwd, args).trim();
  const access = () => createRemoteAccess({ allowHost: [{ host: '127.0.0.1', port: http.port }] }, {}, silentLogger, { timeoutMs: 60_000 });
  /** Everything a cancelled call must leave alone. */
  const snapshot = () => ({
    refs: cli(repo, 'for-each-ref', '--format=%(refname) %(objectname)'),
    head: cli(repo, 'symbolic-ref', 'HEAD'),
    status: cli(repo, 'status', '--porcelain=v1', '--untracked-files=all'),
    readme: readFileSync(join(repo, 'README'), 'utf8'),
    fetchHead: (() => {
      try {
        return readFileSync(join(repo, '.git', 'FETCH_HEAD'), 'utf8');
      } catch {
        return null;
      }
    })(),
    packs: readdirSync(join(repo, '.git', 'objects', 'pack')).sort(),
  });
  /**
   * Calls `tool`, cancels the call at the first progress notification for which `when` holds, and
   * waits until the served repository saw `request`'s connection close.
   */
  const cancelled = async (
    pair: InMemoryPair,
    tool: string,
    args: Record<string, unknown>,
    when: (p: Progress) => boolean,
    request: string,
  ) => {
    const controller = new AbortController();
    const call = pair.client.callTool(
      { name: tool, arguments: args },
      {
        signal: controller.signal,
        onprogress: (p) => {
          if (when(p)) controller.abort();
        },
      },
    );
    await expect(call).rejects.toThrow(/abort/i);
    await until(() => http.aborted.some((r) => r === request));
  };

  beforeAll(async () => {
    served = tempDir('mcpkit-git-served-');
    http = await serveGit(served.path);
    const bare = join(served.path, 'big.git');
    cli(served.path, 'init', '-q', '--bare', '-b', 'master', bare);
    cli(bare, 'config', 'http.receivepack', 'true');
    const upstream = join(served.path, 'up');
    cli(served.path, 'clone', '-q', bare, upstream);
    write(upstream, { README: 'small start\n' });
    cli(upstream, 'add', '.');
    cli(upstream, 'commit', '-q', '-m', 'initial commit');
    base = cli(upstream, 'rev-parse', 'HEAD');
    cli(upstream, 'push', '-q', 'origin', 'HEAD:master', 'HEAD:refs/heads/base');
    for (let c = 0; c < 4; c++) {
      const files: Record<string, Buffer> = {};
      for (let i = 0; i < FILES / 4; i++) files[`data/${c}/${i}.bin`] = randomBytes(4096);
      write(upstream, { ...files, README: `upstream commit ${c}\n` });
      cli(upstream, 'add', '.');
      cli(upstream, 'commit', '-q', '-m', `upstream ${c}`);
    }
    head = cli(upstream, 'rev-parse', 'HEAD');
    cli(upstream, 'push', '-q', 'origin', 'HEAD:master');
  });
  afterAll(async () => {
    await http?.close();
    served?.[Symbol.dispose]();
  });

  beforeEach((context) => {
    // A repository at the initial commit that tracks the served one: the next fetch brings the big commits.
    work = tempDir();
    repo = join(work.path, 'repo');
    cli(work.path, 'init', '-q', '-b', 'master', repo);
    cli(repo, 'fetch', '-q', join(served.path, 'big.git'), 'base');
    cli(repo, 'reset', '-q', '--hard', 'FETCH_HEAD');
    cli(repo, 'remote', 'add', 'origin', `${http.origin}/big.git`);
    cli(repo, 'update-ref', 'refs/remotes/origin/master', base);
    cli(repo, 'config', 'branch.master.remote', 'origin');
    cli(repo, 'config', 'branch.master.merge', 'refs/heads/master');
    http.throttle = null;
    http.aborted.length = 0;
    context.onTestFinished(() => work[Symbol.dispose]());
  });

  it('git_fetch reports the transfer when the client sent a progressToken', async () => {
    // About 1.6 MB at 64 KiB per 40 ms: a second or so.
    http.throttle = { bytes: 64 * 1024, everyMs: 40 };
    await using pair = await connect({ repositories: [work.path], remote: access() });
    const seen: Progress[] = [];
    const res = await pair.client.callTool(
      { name: 'git_fetch', arguments: { repo_path: repo } },
      {
        onprogress: (p) => seen.push(p),
      },
    );
    expect(res.isError, text(res)).toBeFalsy();
    expect(cli(repo, 'rev-parse', 'origin/master')).toBe(head);
    expect(seen.length).toBeGreaterThan(0);
    for (let i = 1; i < seen.length; i++) expect(seen[i]!.progress).toBeGreaterThan(seen[i - 1]!.progress);
    expect(seen.some((p) => /^Receiving: [\d.]+ (KiB|MiB)$/.test(p.message ?? ''))).toBe(true);
    for (const p of seen) expect(p.total).toBeUndefined();
  });

  it('git_fetch reports the transfer to a 2026-07-28 client too (stateless request, progress on its stream)', async () => {
    http.throttle = { bytes: 64 * 1024, everyMs: 40 };
    const remote = access();
    await using pair = await connectV2InMemory(
      () => createGitServer({ repositories: [work.path], remote, env: gitEnv(), home: '/nonexistent-home' }),
      { mode: '2026-07-28' },
    );
    expect(pair.client.getProtocolEra()).toBe('modern');
    const seen: Progress[] = [];
    const res = await pair.client.callTool({ name: 'git_fetch', arguments: { repo_path: repo } }, { onprogress: (p) => seen.push(p) });
    expect(res.isError, text(res)).toBeFalsy();
    expect(cli(repo, 'rev-parse', 'origin/master')).toBe(head);
    expect(seen.length).toBeGreaterThan(0);
    for (let i = 1; i < seen.length; i++) expect(seen[i]!.progress).toBeGreaterThan(seen[i - 1]!.progress);
    expect(seen.some((p) => /^Receiving: [\d.]+ (KiB|MiB)$/.test(p.message ?? ''))).toBe(true);
  });

  it('a cancelled git_fetch closes the transfer and changes no ref; the next fetch works', async () => {
    // About 1.6 MB at 16 KiB per 50 ms: five seconds, cancelled early on.
    http.throttle = { bytes: 16 * 1024, everyMs: 50 };
    const before = snapshot();
    const log = keptLog();
    await using pair = await connect({ repositories: [work.path], remote: access(), logger: log.logger });
    const errors = clientErrors(pair);
    // The server sees the pack's connection close before the answer is complete.
    await cancelled(pair, 'git_fetch', { repo_path: repo }, receivingPack, 'POST /big.git/git-upload-pack');
    // The call logs once it has stopped and the refs are back.
    await until(() =>
      log.lines.some((l) => l.includes(`Fetch from 'origin' (${http.origin}/big.git) was cancelled by the client; no ref was changed`)),
    );
    expect(snapshot()).toEqual(before);
    expect(cli(repo, 'fsck', '--no-progress', '--no-dangling')).toBe('');

    http.throttle = null;
    const again = await pair.client.callTool({ name: 'git_fetch', arguments: { repo_path: repo } });
    expect(again.isError, text(again)).toBeFalsy();
    expect(cli(repo, 'rev-parse', 'origin/master')).toBe(head);
    expect(errors).toEqual([]);
    expect(log.lines.join('')).not.toMatch(/failed unexpectedly|could not restore/);
  });

  it('a cancelled git_pull changes nothing: refs, branch, index and work tree; the next pull works', async () => {
    http.throttle = { bytes: 16 * 1024, everyMs: 50 };
    write(repo, { 'local.txt': 'uncommitted\n' });
    const before = snapshot();
    const log = keptLog();
    await using pair = await connect({ repositories: [work.path], remote: access(), logger: log.logger });
    const errors = clientErrors(pair);
    await cancelled(pair, 'git_pull', { repo_path: repo }, receivingPack, 'POST /big.git/git-upload-pack');
    await until(() => log.lines.some((l) => l.includes('was cancelled by the client; nothing was changed')));
    expect(snapshot()).toEqual(before);
    expect(cli(repo, 'rev-parse', 'HEAD')).toBe(base);

    http.throttle = null;
    const again = await pair.client.callTool({ name: 'git_pull', arguments: { repo_path: repo } });
    expect(again.isError, text(again)).toBeFalsy();
    expect(cli(repo, 'rev-parse', 'HEAD')).toBe(head);
    expect(readFileSync(join(repo, 'README'), 'utf8')).toBe('upstream commit 3\n');
    expect(readFileSync(join(repo, 'local.txt'), 'utf8')).toBe('uncommitted\n');
    expect(errors).toEqual([]);
    expect(log.lines.join('')).not.toMatch(/failed unexpectedly|could not restore/);
  });

  it('a cancelled git_push changes nothing locally unless it completed; the next push works', async () => {
    // Only the remote's answer to the pack is slow: the pack itself goes up at full speed.
    http.throttle = { bytes: 16, everyMs: 100, only: 'POST /big.git/git-receive-pack' };
    cli(repo, 'checkout', '-q', '-b', 'topic');
    write(repo, { 'topic.txt': 'pushed\n' });
    cli(repo, 'add', 'topic.txt');
    cli(repo, 'commit', '-q', '-m', 'topic commit');
    const mine = cli(repo, 'rev-parse', 'HEAD');
    const before = snapshot();
    const log = keptLog();
    await using pair = await connect({ repositories: [work.path], remote: access(), logger: log.logger });
    const errors = clientErrors(pair);
    // Any progress once the pack is up: the remote's answer is on its way.
    const packUp = () => http.seen.some((r) => r.method === 'POST' && r.url === '/big.git/git-receive-pack');
    await cancelled(pair, 'git_push', { repo_path: repo, branch: 'topic' }, packUp, 'POST /big.git/git-receive-pack');
    const stopped = "Push to 'origin'";
    await until(() => log.lines.some((l) => l.includes(stopped) && /was cancelled by the client|completed before/.test(l)));
    const remoteTopic = spawnGit(join(served.path, 'big.git'), ['rev-parse', '--verify', '--quiet', 'refs/heads/topic']);
    if (log.lines.some((l) => l.includes('was cancelled by the client; the remote may or may not have applied it'))) {
      // Stopped before the remote's answer: no remote-tracking ref for topic, whatever the remote did.
      expect(snapshot()).toEqual(before);
      expect(['', mine]).toContain(remoteTopic);
    } else {
      // The remote's whole answer had arrived (only the final flush was missing): the push completed.
      expect(remoteTopic).toBe(mine);
      expect(cli(repo, 'rev-parse', 'refs/remotes/origin/topic')).toBe(mine);
    }
    expect(cli(repo, 'rev-parse', 'HEAD')).toBe(mine);

    http.throttle = null;
    const again = await pair.client.callTool({ name: 'git_push', arguments: { repo_path: repo, branch: 'topic' } });
    expect(again.isError, text(again)).toBeFalsy();
    expect(cli(join(served.path, 'big.git'), 'rev-parse', 'refs/heads/topic')).toBe(mine);
    expect(cli(repo, 'rev-parse', 'refs/remotes/origin/topic')).toBe(mine);
    expect(errors).toEqual([]);
    expect(log.lines.join('')).not.toMatch(/failed unexpectedly/);
  });
});
