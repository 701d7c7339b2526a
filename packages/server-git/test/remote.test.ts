/**
 * git_fetch, git_pull, git_push against a real repository served over smart HTTP on 127.0.0.1
 * (`git http-backend` as CGI behind node:http, ./gitHttpServer.ts), through the network policy of @mcpkit/net.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { createServer, request as httpRequest, type IncomingMessage } from 'node:http';
import { type AddressInfo, connect as netConnect, type Socket } from 'node:net';
import { join } from 'node:path';
import type { AllowedHost } from '@mcpkit/net';
import { silentLogger } from '@mcpkit/protocol-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createRemoteAccess } from '../src/engine/remote/http.js';
import type { RemoteAccess } from '../src/server.js';
import { type GitHttpServer, serveGit } from './gitHttpServer.js';
import { connect, git, hasGit, type TempDir, tempDir, text, write } from './helpers.js';

const TOKEN = 's3cr3t-t0ken-value-1234';

describe.skipIf(!hasGit)('remote tools over smart HTTP on loopback', () => {
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

  it('offers the network tools only with remote access', async () => {
    await using without = await connect({ repositories: [work.path] });
    const names = (await without.client.listTools()).tools.map((t) => t.name);
    expect(names).not.toContain('git_fetch');
    expect(names).not.toContain('git_pull');
    expect(names).not.toContain('git_push');
    await using withRemote = await connect({ repositories: [work.path], remote: access() });
    const tools = (await withRemote.client.listTools()).tools;
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect(byName.get('git_fetch')?.annotations).toMatchObject({ openWorldHint: true, destructiveHint: false, readOnlyHint: false });
    expect(byName.get('git_pull')?.annotations).toMatchObject({ openWorldHint: true, destructiveHint: true });
    expect(byName.get('git_push')?.annotations).toMatchObject({ openWorldHint: true, destructiveHint: true });
  });

  it('git_fetch brings new commits into origin/master and leaves the branch and work tree alone', async () => {
    const before = cli(repo, 'rev-parse', 'HEAD');
    const next = upstreamCommit('test.txt', 'changed upstream\n');
    const { res, text: out, structured } = await call(access(), 'git_fetch', {});
    expect(res.isError, out).toBeFalsy();
    expect(out).toBe(`Fetched origin: master ${before.slice(0, 7)}..${next.slice(0, 7)}`);
    expect(cli(repo, 'rev-parse', 'origin/master')).toBe(next);
    expect(cli(repo, 'rev-parse', 'HEAD')).toBe(before);
    expect(readFileSync(join(repo, 'test.txt'), 'utf8')).toBe('test\n');
    expect(structured?.updated).toEqual([{ ref: 'refs/remotes/origin/master', name: 'master', old: before, new: next }]);
    // The CLI reads what isomorphic-git wrote (the new pack included).
    expect(cli(repo, 'log', '-1', '--format=%s', 'origin/master')).toBe('upstream test.txt');
    const again = await call(access(), 'git_fetch', {});
    expect(again.text).toBe('Fetched origin: already up to date');
  });

  it('git_pull fast-forwards the branch and updates the work tree, keeping unrelated local changes', async () => {
    const before = cli(repo, 'rev-parse', 'HEAD');
    const next = upstreamCommit('test.txt', 'pulled content\n');
    write(repo, { 'other.txt': 'local edit\n' });
    const { res, text: out, structured } = await call(access(), 'git_pull', {});
    expect(res.isError, out).toBeFalsy();
    expect(out).toMatch(
      new RegExp(`^Pulled origin/master into master: fast-forward ${before.slice(0, 7)}\\.\\.${next.slice(0, 7)}, 1 file updated`),
    );
    expect(structured).toMatchObject({ result: 'fast-forward', old: before, new: next, files: ['test.txt'] });
    expect(cli(repo, 'rev-parse', 'HEAD')).toBe(next);
    expect(readFileSync(join(repo, 'test.txt'), 'utf8')).toBe('pulled content\n');
    expect(readFileSync(join(repo, 'other.txt'), 'utf8')).toBe('local edit\n');
    expect(cli(repo, 'status', '--porcelain')).toBe('M other.txt');
    const again = await call(access(), 'git_pull', {});
    expect(again.text).toBe('Already up to date.');
  });

  it('git_pull refuses when local changes would be overwritten, changing nothing', async () => {
    const before = cli(repo, 'rev-parse', 'HEAD');
    upstreamCommit('test.txt', 'upstream\n');
    write(repo, { 'test.txt': 'mine\n' });
    const { res, text: out } = await call(access(), 'git_pull', {});
    expect(res.isError).toBe(true);
    expect(out).toContain('would be overwritten');
    expect(out).toContain('\ttest.txt');
    expect(cli(repo, 'rev-parse', 'HEAD')).toBe(before);
    expect(readFileSync(join(repo, 'test.txt'), 'utf8')).toBe('mine\n');
    expect(cli(repo, 'status', '--porcelain')).toBe('M test.txt');
  });

  it('git_pull makes a merge commit for diverged, non-conflicting histories; a conflict changes nothing', async () => {
    cli(repo, 'config', 'user.name', 'Merger');
    cli(repo, 'config', 'user.email', 'merger@example.com');
    const theirs = upstreamCommit('test.txt', 'upstream side\n');
    write(repo, { 'local.txt': 'local side\n' });
    cli(repo, 'add', 'local.txt');
    cli(repo, 'commit', '-q', '-m', 'local commit');
    const ours = cli(repo, 'rev-parse', 'HEAD');
    const merged = await call(access(), 'git_pull', {});
    expect(merged.res.isError, merged.text).toBeFalsy();
    expect(merged.structured).toMatchObject({ result: 'merge', old: ours });
    expect(cli(repo, 'log', '-1', '--format=%P')).toBe(`${ours} ${theirs}`);
    expect(readFileSync(join(repo, 'test.txt'), 'utf8')).toBe('upstream side\n');
    expect(cli(repo, 'status', '--porcelain')).toBe('');

    // Now both sides change the same line.
    upstreamCommit('other.txt', 'upstream other\n');
    write(repo, { 'other.txt': 'local other\n' });
    cli(repo, 'commit', '-q', '-am', 'local other');
    const head = cli(repo, 'rev-parse', 'HEAD');
    const conflict = await call(access(), 'git_pull', {});
    expect(conflict.res.isError).toBe(true);
    expect(conflict.text).toContain('conflicts');
    expect(conflict.text).toContain('nothing was changed');
    expect(cli(repo, 'rev-parse', 'HEAD')).toBe(head);
    expect(cli(repo, 'status', '--porcelain')).toBe('');
    expect(readFileSync(join(repo, 'other.txt'), 'utf8')).toBe('local other\n');
  });

  it('git_push sends a new commit that the server repository then has', async () => {
    const old = cli(repo, 'rev-parse', 'HEAD');
    write(repo, { 'pushed.txt': 'pushed\n' });
    cli(repo, 'add', 'pushed.txt');
    cli(repo, 'commit', '-q', '-m', 'pushed commit');
    const head = cli(repo, 'rev-parse', 'HEAD');
    const { res, text: out, structured } = await call(access(), 'git_push', {});
    expect(res.isError, out).toBeFalsy();
    expect(out).toBe(`Pushed master to origin: ${old.slice(0, 7)}..${head.slice(0, 7)}`);
    expect(structured).toMatchObject({ ref: 'refs/heads/master', old, new: head, result: 'fast-forward' });
    expect(git(served.path, ['--git-dir', bare, 'log', '-1', '--format=%H %s', 'master']).trim()).toBe(`${head} pushed commit`);
    expect(cli(repo, 'rev-parse', 'origin/master')).toBe(head);
    // A new branch.
    cli(repo, 'branch', 'feature');
    const feature = await call(access(), 'git_push', { branch: 'feature' });
    expect(feature.text).toBe(`Pushed feature to origin: new branch ${head.slice(0, 7)}`);
    expect(git(served.path, ['--git-dir', bare, 'rev-parse', 'feature']).trim()).toBe(head);
  });

  it('git_push refuses a non-fast-forward unless force is true', async () => {
    const theirs = upstreamCommit('test.txt', 'upstream\n');
    write(repo, { 'mine.txt': 'mine\n' });
    cli(repo, 'add', 'mine.txt');
    cli(repo, 'commit', '-q', '-m', 'mine');
    const mine = cli(repo, 'rev-parse', 'HEAD');
    const refused = await call(access(), 'git_push', {});
    expect(refused.res.isError).toBe(true);
    expect(refused.text).toContain('non-fast-forward');
    expect(git(served.path, ['--git-dir', bare, 'rev-parse', 'master']).trim()).toBe(theirs);
    const forced = await call(access(), 'git_push', { force: true });
    expect(forced.res.isError, forced.text).toBeFalsy();
    expect(forced.text).toBe(`Pushed master to origin: forced update ${theirs.slice(0, 7)}...${mine.slice(0, 7)}`);
    expect(git(served.path, ['--git-dir', bare, 'rev-parse', 'master']).trim()).toBe(mine);
  });

  it('refuses a loopback remote without --allow-host or --allow-private-network, before any request, changing no ref', async () => {
    upstreamCommit('test.txt', 'new\n');
    const refs = cli(repo, 'for-each-ref');
    for (const tool of ['git_fetch', 'git_pull', 'git_push']) {
      const { res, text: out } = await call(access({}), tool, {});
      expect(res.isError, tool).toBe(true);
      expect(out, tool).toContain('--allow-host');
    }
    // --allow-private-network permits the address, but plain http still needs the host named.
    const privateOnly = await call(access({ allowPrivateNetwork: true }), 'git_fetch', {});
    expect(privateOnly.res.isError).toBe(true);
    expect(privateOnly.text).toContain('plain http');
    // https to loopback: the policy refuses the address itself.
    cli(repo, 'remote', 'set-url', 'origin', `https://127.0.0.1:${http.port}/r${seq}.git`);
    const https = await call(access({}), 'git_fetch', {});
    expect(https.res.isError).toBe(true);
    expect(https.text).toContain('loopback');
    expect(http.seen).toEqual([]);
    expect(cli(repo, 'for-each-ref')).toBe(refs);
  });

  it('refuses a redirect to a host the policy does not allow', async () => {
    const other = await serveGit(served.path);
    try {
      const redirect = createServer((req, res) => {
        res.writeHead(302, { location: `${other.origin}${req.url}` }).end();
      });
      await new Promise<void>((resolve) => redirect.listen(0, '127.0.0.1', resolve));
      const port = (redirect.address() as AddressInfo).port;
      cli(repo, 'remote', 'set-url', 'origin', `http://127.0.0.1:${port}/r${seq}.git`);
      const { res, text: out } = await call(access({ allowHost: [{ host: '127.0.0.1', port }] }), 'git_fetch', {});
      redirect.closeAllConnections();
      await new Promise((resolve) => redirect.close(resolve));
      expect(res.isError).toBe(true);
      expect(out).toContain(`redirected to ${other.origin}/`);
      expect(other.seen).toEqual([]);
    } finally {
      await other.close();
    }
  });

  it('refuses ssh, git, file and local-path remotes with an https-only message', async () => {
    const cases: [string, string][] = [
      ['git@github.com:owner/repo.git', 'uses ssh'],
      ['ssh://git@github.com/owner/repo.git', 'uses ssh'],
      ['git://github.com/owner/repo.git', 'git://'],
      [`file://${bare}`, 'file://'],
      [bare, 'local path'],
      ['../elsewhere', 'local path'],
    ];
    const refs = cli(repo, 'for-each-ref');
    for (const [url, why] of cases) {
      cli(repo, 'remote', 'set-url', 'origin', url);
      for (const tool of ['git_fetch', 'git_pull', 'git_push']) {
        const { res, text: out } = await call(access(), tool, {});
        expect(res.isError, `${tool} ${url}`).toBe(true);
        expect(out, `${tool} ${url}`).toContain(why);
        expect(out, `${tool} ${url}`).toContain('only speaks https');
      }
    }
    expect(cli(repo, 'for-each-ref')).toBe(refs);
    const missing = await call(access(), 'git_fetch', { remote: 'nope' });
    expect(missing.text).toBe("No remote 'nope' in the repository; configured: origin");
    const dashed = await call(access(), 'git_fetch', { remote: '--upload-pack=touch /tmp/x' });
    expect(dashed.res.isError).toBe(true);
    expect(dashed.text).toContain("must not start with '-'");
  });

  it('sends credentials from the environment when asked, and never shows them', async () => {
    http.requireAuth = `alice:${TOKEN}`;
    const next = upstreamCommit('test.txt', 'secret work\n');
    // Without credentials: a clear message naming the variables.
    const none = await call(access(), 'git_fetch', {});
    expect(none.res.isError).toBe(true);
    expect(none.text).toContain('GIT_TOKEN');
    expect(http.seen.every((s) => s.authorization === undefined)).toBe(true);

    const env = { GIT_USERNAME: 'alice', GIT_TOKEN: TOKEN };
    const ok = await call(access(undefined, env), 'git_fetch', {});
    expect(ok.res.isError, ok.text).toBeFalsy();
    expect(cli(repo, 'rev-parse', 'origin/master')).toBe(next);
    const expected = `Basic ${Buffer.from(`alice:${TOKEN}`).toString('base64')}`;
    expect(http.seen.some((s) => s.authorization === expected)).toBe(true);
    expect(JSON.stringify(ok.res)).not.toContain(TOKEN);
    expect(JSON.stringify(ok.res)).not.toContain(expected.slice(6));

    // Push with credentials too.
    cli(repo, 'merge', '-q', '--ff-only', 'origin/master');
    write(repo, { 'x.txt': 'x\n' });
    cli(repo, 'add', 'x.txt');
    cli(repo, 'commit', '-q', '-m', 'x');
    const pushed = await call(access(undefined, env), 'git_push', {});
    expect(pushed.res.isError, pushed.text).toBeFalsy();
    expect(JSON.stringify(pushed.res)).not.toContain(TOKEN);

    // Wrong credentials: refused, and the message holds no secret.
    const wrong = await call(access(undefined, { GIT_TOKEN: `${TOKEN}-wrong` }), 'git_fetch', {});
    expect(wrong.res.isError).toBe(true);
    expect(wrong.text).toContain('rejected the credentials');
    expect(JSON.stringify(wrong.res)).not.toContain(TOKEN);

    // Credentials limited to other hosts are not offered here.
    http.seen.length = 0;
    const scoped = await call(access(undefined, { ...env, GIT_CREDENTIAL_HOSTS: 'git.example.com' }), 'git_fetch', {});
    expect(scoped.res.isError).toBe(true);
    expect(scoped.text).toContain('GIT_CREDENTIAL_HOSTS');
    expect(http.seen.every((s) => s.authorization === undefined)).toBe(true);
  });

  it('ignores and hides credentials written into the remote URL', async () => {
    const secret = 'hunter2-in-the-url';
    cli(repo, 'remote', 'set-url', 'origin', `http://bob:${secret}@127.0.0.1:${http.port}/r${seq}.git`);
    http.requireAuth = `alice:${TOKEN}`;
    const res = await call(access(), 'git_fetch', {});
    expect(res.res.isError).toBe(true);
    expect(JSON.stringify(res.res)).not.toContain(secret);
    expect(http.seen.every((s) => s.authorization === undefined)).toBe(true);
    http.requireAuth = null;
    const ok = await call(access(), 'git_fetch', {});
    expect(ok.res.isError, ok.text).toBeFalsy();
    expect(JSON.stringify(ok.res)).not.toContain(secret);
    expect(ok.structured?.url).toBe(`http://127.0.0.1:${http.port}/r${seq}.git`);
  });

  it('git_fetch with ref fetches that branch only; prune removes branches gone from the remote', async () => {
    cli(upstream, 'push', '-q', 'origin', 'HEAD:refs/heads/topic');
    cli(upstream, 'push', '-q', 'origin', 'HEAD:refs/heads/other');
    const one = await call(access(), 'git_fetch', { ref: 'topic' });
    expect(one.res.isError, one.text).toBeFalsy();
    expect(one.text).toMatch(/^Fetched origin: topic \(new\) [0-9a-f]{7}$/);
    expect(cli(repo, 'branch', '-r')).not.toContain('origin/other');
    await call(access(), 'git_fetch', {});
    expect(cli(repo, 'branch', '-r')).toContain('origin/other');
    cli(upstream, 'push', '-q', 'origin', ':refs/heads/other');
    const pruned = await call(access(), 'git_fetch', { prune: true });
    expect(pruned.text).toBe('Fetched origin: other (deleted)');
    expect(cli(repo, 'branch', '-r')).not.toContain('origin/other');
  });

  it('bounds the response size, leaving refs unchanged', async () => {
    upstreamCommit('big.txt', randomBytes(50_000).toString('hex'));
    const refs = cli(repo, 'for-each-ref');
    const small = createRemoteAccess({ allowHost: allowLoopback() }, {}, silentLogger, { maxBytes: 2_000 });
    const { res, text: out } = await call(small, 'git_fetch', {});
    expect(res.isError).toBe(true);
    expect(out).toContain('limit');
    expect(cli(repo, 'for-each-ref')).toBe(refs);
  });

  it('goes through --proxy-url when given (absolute-form requests for an http:// remote)', async () => {
    // A forward proxy: absolute-form requests (`POST http://host/path HTTP/1.1`) are forwarded; a CONNECT
    // tunnel is what an https:// remote would get.
    const requestLines: string[] = [];
    const tunnels: string[] = [];
    const proxy = createServer((req, res) => {
      requestLines.push(`${req.method} ${req.url}`);
      const target = new URL(req.url ?? '');
      const { 'proxy-connection': _, ...headers } = req.headers;
      const upstream = httpRequest(
        { host: target.hostname, port: target.port, method: req.method, path: target.pathname + target.search, headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      upstream.on('error', () => res.destroy());
      req.pipe(upstream);
    });
    proxy.on('connect', (req: IncomingMessage, socket: Socket, head: Buffer) => {
      tunnels.push(req.url ?? '');
      const [host, port] = (req.url ?? '').split(':');
      const upstreamSocket = netConnect(Number(port), host, () => {
        socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        upstreamSocket.write(head);
        upstreamSocket.pipe(socket);
        socket.pipe(upstreamSocket);
      });
      upstreamSocket.on('error', () => socket.destroy());
      socket.on('error', () => upstreamSocket.destroy());
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    try {
      const next = upstreamCommit('test.txt', 'via proxy\n');
      const proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
      const { res, text: out } = await call(access({ allowHost: allowLoopback(), proxyUrl }), 'git_fetch', {});
      expect(res.isError, out).toBeFalsy();
      expect(cli(repo, 'rev-parse', 'origin/master')).toBe(next);
      expect(tunnels).toEqual([]);
      expect(requestLines.length).toBeGreaterThan(0);
      for (const line of requestLines) expect(line).toMatch(new RegExp(`^(GET|POST) http://127\\.0\\.0\\.1:${http.port}/`));
    } finally {
      proxy.closeAllConnections();
      await new Promise((resolve) => proxy.close(resolve));
    }
  });

  it('the repository path is still confined to the allowed roots', async () => {
    using outside = tempDir();
    mkdirSync(join(outside.path, 'x'));
    await using pair = await connect({ repositories: [outside.path], remote: access() });
    const res = await pair.client.callTool({ name: 'git_fetch', arguments: { repo_path: repo } });
    expect(res.isError).toBe(true);
    expect(text(res)).toContain('outside');
    expect(http.seen).toEqual([]);
  });
});
