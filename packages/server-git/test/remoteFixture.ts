/**
 * The fixture of the remote tools' tests: a real smart-HTTP git server on 127.0.0.1 (./gitHttpServer.ts) and, for
 * each test, a fresh served repository, a clone to make upstream commits in and the clone the tools work on.
 * Call `remoteFixture()` inside a describe: it registers the hooks and gives the current test's paths.
 */
import { join } from 'node:path';
import type { AllowedHost } from '@mcpkit/net';
import { silentLogger } from '@mcpkit/protocol-core';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { createRemoteAccess } from '../src/engine/remote/http.js';
import type { RemoteAccess } from '../src/server.js';
import { type GitHttpServer, serveGit } from './gitHttpServer.js';
import { connect, git, type TempDir, tempDir, text, write } from './helpers.js';

export const TOKEN = 's3cr3t-t0ken-value-1234';

/** The current test's served repository, upstream clone and working clone (set by the hooks). */
export interface RemoteState {
  served: TempDir;
  http: GitHttpServer;
  bare: string;
  /** A clone of the server's repository used to make new upstream commits. */
  upstream: string;
  work: TempDir;
  /** The repository the tools work on (inside `work.path`, the allowed root). */
  repo: string;
  seq: number;
}

export function remoteFixture() {
  const state = { seq: 0 } as RemoteState;

  const cli = (cwd: string, ...args: string[]) => git(cwd, args).trim();
  const allowLoopback = (): AllowedHost[] => [{ host: '127.0.0.1', port: state.http.port }];
  const access = (config: Parameters<typeof createRemoteAccess>[0] = { allowHost: allowLoopback() }, env: NodeJS.ProcessEnv = {}) =>
    createRemoteAccess(config, env, silentLogger, { timeoutMs: 20_000 });

  async function call(remote: RemoteAccess | undefined, name: string, args: Record<string, unknown>) {
    await using pair = await connect({ repositories: [state.work.path], ...(remote ? { remote } : {}) });
    const res = await pair.client.callTool({ name, arguments: { repo_path: state.repo, ...args } });
    return { res, text: text(res), structured: res.structuredContent as Record<string, unknown> | undefined };
  }

  function upstreamCommit(file: string, content: string): string {
    write(state.upstream, { [file]: content });
    cli(state.upstream, 'add', file);
    cli(state.upstream, 'commit', '-q', '-m', `upstream ${file}`);
    cli(state.upstream, 'push', '-q', 'origin', 'HEAD:master');
    return cli(state.upstream, 'rev-parse', 'HEAD');
  }

  beforeAll(async () => {
    state.served = tempDir('mcpkit-git-served-');
    state.http = await serveGit(state.served.path);
  });
  afterAll(async () => {
    await state.http.close();
    state.served[Symbol.dispose]();
  });

  beforeEach((context) => {
    state.seq += 1;
    state.bare = join(state.served.path, `r${state.seq}.git`);
    cli(state.served.path, 'init', '-q', '--bare', '-b', 'master', state.bare);
    cli(state.bare, 'config', 'http.receivepack', 'true');
    state.upstream = join(state.served.path, `up${state.seq}`);
    cli(state.served.path, 'clone', '-q', state.bare, state.upstream);
    write(state.upstream, { 'test.txt': 'test\n', 'other.txt': 'other\n' });
    cli(state.upstream, 'add', '.');
    cli(state.upstream, 'commit', '-q', '-m', 'initial commit');
    cli(state.upstream, 'push', '-q', 'origin', 'master');
    state.work = tempDir();
    state.repo = join(state.work.path, 'repo');
    cli(state.work.path, 'clone', '-q', state.bare, state.repo);
    cli(state.repo, 'remote', 'set-url', 'origin', `${state.http.origin}/r${state.seq}.git`);
    state.http.requireAuth = null;
    state.http.seen.length = 0;
    context.onTestFinished(() => state.work[Symbol.dispose]());
  });

  return Object.assign(state, { cli, allowLoopback, access, call, upstreamCommit });
}
