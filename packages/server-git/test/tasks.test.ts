/**
 * git_blame and the network tools as tasks (the 2026-07-28 tasks extension), over HTTP with raw JSON-RPC, on the
 * CLI's own app (`createGitApp`): a call that opts in gets a task whose result is the inline call's, a fetch's
 * transfer is the task's status message, tasks/cancel aborts the fetch's HTTP request, and a call that does not
 * opt in is answered inline exactly as by a server without tasks.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { silentLogger } from '@mcpkit/protocol-core';
import { type HttpFixture, startHttp } from '@mcpkit/protocol-core/testing';
import { rpc, TASKS, untilTerminal } from '@mcpkit/test-utils/tasks';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createGitApp } from '../src/app.js';
import type { RemoteAccess } from '../src/engine/remote/access.js';
import { createRemoteAccess } from '../src/engine/remote/http.js';
import { createGitServer } from '../src/server.js';
import { type GitHttpServer, serveGit } from './gitHttpServer.js';
import { git, hasGit, type TempDir, tempDir, write } from './helpers.js';

/** What a tool answered (content, structuredContent, isError), without the envelope's `_meta` and `resultType`. */
function toolAnswer(result: Record<string, unknown> | undefined): unknown {
  const { _meta: _envelope, resultType: _type, ...answer } = result ?? {};
  return answer;
}

// The engine loads on the first call: on a loaded machine that alone can take seconds.
describe.skipIf(!hasGit)('git tools as tasks', { timeout: 60_000 }, () => {
  let served: TempDir;
  let work: TempDir;
  let repo: string;
  let http: GitHttpServer;
  let remote: RemoteAccess;
  let withTasks: HttpFixture;
  let withoutTasks: HttpFixture;

  beforeAll(async () => {
    served = tempDir('mcpkit-git-served-');
    http = await serveGit(served.path);
    const bare = join(served.path, 'up.git');
    git(served.path, ['init', '-q', '--bare', '-b', 'master', bare]);
    const upstream = join(served.path, 'up');
    git(served.path, ['clone', '-q', bare, upstream]);
    write(upstream, { README: 'one\ntwo\n' });
    git(upstream, ['add', '.']);
    git(upstream, ['commit', '-q', '-m', 'first']);
    write(upstream, { README: 'one\ntwo\nthree\n' });
    git(upstream, ['commit', '-q', '-am', 'second']);
    git(upstream, ['push', '-q', 'origin', 'HEAD:master']);
    work = tempDir();
    repo = join(work.path, 'repo');
    git(work.path, ['clone', '-q', bare, repo]);
    git(repo, ['remote', 'set-url', 'origin', `${http.origin}/up.git`]);
    // Incompressible commits upstream: the next fetch has a pack to receive.
    const files: Record<string, Buffer> = {};
    for (let i = 0; i < 64; i++) files[`data/${i}.bin`] = randomBytes(4096);
    write(upstream, files);
    git(upstream, ['add', '.']);
    git(upstream, ['commit', '-q', '-m', 'data']);
    git(upstream, ['push', '-q', 'origin', 'HEAD:master']);
    remote = await createRemoteAccess({ allowHost: [{ host: '127.0.0.1', port: http.port }] }, {}, silentLogger, { timeoutMs: 60_000 });
    withTasks = await startHttp(createGitApp({ repositories: [work.path], remote, logger: silentLogger }));
    withoutTasks = await startHttp({ createServer: (context) => createGitServer({ repositories: [work.path], remote }, context) });
  });
  afterAll(async () => {
    await withTasks?.[Symbol.asyncDispose]();
    await withoutTasks?.[Symbol.asyncDispose]();
    await remote?.close();
    await http?.close();
    work?.[Symbol.dispose]();
    served?.[Symbol.dispose]();
  });

  it('lists the tasks extension in server/discover', async () => {
    const { result } = await rpc(withTasks.endpoint, 'server/discover', {});
    expect(result?.capabilities).toMatchObject({ extensions: { [TASKS]: {} } });
  });

  it('answers an opted-in git_blame with a task that completes with the inline result, structuredContent included', async () => {
    const args = { name: 'git_blame', arguments: { repo_path: repo, file: 'README' } };
    const { result: created, error } = await rpc(withTasks.endpoint, 'tools/call', args);
    expect(error).toBeUndefined();
    expect(created).toMatchObject({ resultType: 'task', status: 'working' });
    const done = await untilTerminal(withTasks.endpoint, created?.taskId as string);
    expect(done.status).toBe('completed');
    const inline = (await rpc(withTasks.endpoint, 'tools/call', args, { optIn: false })).result;
    expect(inline?.structuredContent).toMatchObject({ lines: [{ line: 1 }, { line: 2 }, { line: 3 }] });
    expect(toolAnswer(done.result as Record<string, unknown>)).toEqual(toolAnswer(inline));
  });

  it('answers a call that does not opt in inline, exactly as a server without tasks', async () => {
    for (const args of [
      { name: 'git_blame', arguments: { repo_path: repo, file: 'README', start_line: 2 } },
      { name: 'git_blame', arguments: { repo_path: repo, file: 'missing' } },
      { name: 'git_log', arguments: { repo_path: repo } },
    ]) {
      const ours = await rpc(withTasks.endpoint, 'tools/call', args, { optIn: false });
      expect(ours.result?.resultType).not.toBe('task');
      expect(ours).toEqual(await rpc(withoutTasks.endpoint, 'tools/call', args, { optIn: false }));
    }
  });

  it('shows a git_fetch transfer as the status message, and tasks/cancel aborts its HTTP request', async () => {
    // 4 KiB per 50 ms, and nothing after the first 32 KiB until the client lets go: the transfer cannot end before
    // the cancel, however fast the machine.
    http.throttle = { bytes: 4096, everyMs: 50, only: 'POST /up.git/git-upload-pack', stallAfter: 32 * 1024 };
    http.aborted.length = 0;
    try {
      const { result: created } = await rpc(withTasks.endpoint, 'tools/call', { name: 'git_fetch', arguments: { repo_path: repo } });
      expect(created).toMatchObject({ resultType: 'task' });
      const taskId = created?.taskId as string;
      const working = await untilTerminal(withTasks.endpoint, taskId, {
        // The pack is arriving (KiB received, more than the ref advertisement).
        until: (task) => /^Receiving: [\d.]+ KiB$/.test(String(task.statusMessage ?? '')),
      });
      expect(working).toMatchObject({ status: 'working' });
      const { error } = await rpc(withTasks.endpoint, 'tasks/cancel', { taskId });
      expect(error).toBeUndefined();
      await vi.waitFor(() => expect(http.aborted).toContain('POST /up.git/git-upload-pack'), { timeout: 10_000, interval: 10 });
      expect((await untilTerminal(withTasks.endpoint, taskId)).status).toBe('cancelled');
      expect(git(repo, ['rev-parse', 'origin/master']).trim()).toBe(git(repo, ['rev-parse', 'master']).trim());
    } finally {
      http.throttle = null;
    }
  });

  it('offers no task without --repository: an opted-in call gets the client-roots round inline', async () => {
    await using rootsFromClient = await startHttp(createGitApp({ remote, logger: silentLogger }));
    const { result } = await rpc(rootsFromClient.endpoint, 'tools/call', {
      name: 'git_blame',
      arguments: { repo_path: repo, file: 'README' },
      _meta: { 'io.modelcontextprotocol/clientCapabilities': { roots: {}, extensions: { [TASKS]: {} } } },
    });
    expect(result?.resultType).toBe('input_required');
  });
});
