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

export function remoteFixture() {
  let served: TempDir;
  let http: GitHttpServer;
  let bare: string;
  /** A clone of the server's repository used to make new upstream commits. */
  let upstream: string;
  let work: TempDir;
  /** The repository the tools work on (inside `work.path`, the allowed root). */
  let repo: string;
  let seq = 0;

  const cli = (cwd: string, ...args: string[]) => git(cwd, args).trim();
  const allowLoopback = (): AllowedHost[] => [{ host: '127.0.0.1', port: http.port }];
  const access = (config: Parameters<typeof createRemoteAccess>[0] = { allowHost: allowLoopback() }, env: NodeJS.ProcessEnv = {}) =>
    createRemoteAccess(config, env, silentLogger, { timeoutMs: 20_000 });

  async function call(remote: RemoteAccess | undefined, name: string, args: Record<string, unknown>) {
    await using pair = await connect({ repositories: [work.path], ...(remote ? { remote } : {}) });
    const res = await pair.client.callTool({ name, arguments: { repo_path: repo, ...args } });
    return { res, text: text(res), structured: res.structuredContent as Record<string, unknown> | undefined };
  }

  function upstreamCommit(file: string, content: string): string {
    write(upstream, { [file]: content });
    cli(upstream, 'add', file);
    cli(upstream, 'commit', '-q', '-m', `upstream ${file}`);
    cli(upstream, 'push', '-q', 'origin', 'HEAD:master');
    return cli(upstream, 'rev-parse', 'HEAD');
  }

  beforeAll(async () => {
    served = tempDir('mcpkit-git-served-');
    http = await serveGit(served.path);
  });
  afterAll(async () => {
    await http.close();
    served[Symbol.dispose]();
  });

  beforeEach((context) => {
    seq += 1;
    bare = join(served.path, `r${seq}.git`);
    cli(served.path, 'init', '-q', '--bare', '-b', 'master', bare);
    cli(bare, 'config', 'http.receivepack', 'true');
    upstream = join(served.path, `up${seq}`);
    cli(served.path, 'clone', '-q', bare, upstream);
    write(upstream, { 'test.txt': 'test\n', 'other.txt': 'other\n' });
    cli(upstream, 'add', '.');
    cli(upstream, 'commit', '-q', '-m', 'initial commit');
    cli(upstream, 'push', '-q', 'origin', 'master');
    work = tempDir();
    repo = join(work.path, 'repo');
    cli(work.path, 'clone', '-q', bare, repo);
    cli(repo, 'remote', 'set-url', 'origin', `${http.origin}/r${seq}.git`);
    http.requireAuth = null;
    http.seen.length = 0;
    context.onTestFinished(() => work[Symbol.dispose]());
  });

  return {
    get served() {
      return served;
    },
    get http() {
      return http;
    },
    get bare() {
      return bare;
    },
    get upstream() {
      return upstream;
    },
    get work() {
      return work;
    },
    get repo() {
      return repo;
    },
    get seq() {
      return seq;
    },
    cli,
    allowLoopback,
    access,
    call,
    upstreamCommit,
  };
}
