/**
 * The remote tools' network policy over smart HTTP on 127.0.0.1 (./remoteFixture.ts): loopback, redirects and
 * transports refused, credentials sent only from the environment and never shown, --proxy-url, confinement.
 */
import { mkdirSync } from 'node:fs';
import { createServer, request as httpRequest, type IncomingMessage } from 'node:http';
import { type AddressInfo, connect as netConnect, type Socket } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { serveGit } from './gitHttpServer.js';
import { connect, hasGit, tempDir, text, write } from './helpers.js';
import { remoteFixture, TOKEN } from './remoteFixture.js';

describe.skipIf(!hasGit)('remote tools over smart HTTP on loopback: the network policy', () => {
  const fx = remoteFixture();
  const { cli, allowLoopback, access, call, upstreamCommit } = fx;

  it('refuses a loopback remote without --allow-host or --allow-private-network, before any request, changing no ref', async () => {
    upstreamCommit('test.txt', 'new\n');
    const refs = cli(fx.repo, 'for-each-ref');
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
    cli(fx.repo, 'remote', 'set-url', 'origin', `https://127.0.0.1:${fx.http.port}/r${fx.seq}.git`);
    const https = await call(access({}), 'git_fetch', {});
    expect(https.res.isError).toBe(true);
    expect(https.text).toContain('loopback');
    expect(fx.http.seen).toEqual([]);
    expect(cli(fx.repo, 'for-each-ref')).toBe(refs);
  });

  it('refuses a redirect to a host the policy does not allow', async () => {
    const other = await serveGit(fx.served.path);
    try {
      const redirect = createServer((req, res) => {
        res.writeHead(302, { location: `${other.origin}${req.url}` }).end();
      });
      await new Promise<void>((resolve) => redirect.listen(0, '127.0.0.1', resolve));
      const port = (redirect.address() as AddressInfo).port;
      cli(fx.repo, 'remote', 'set-url', 'origin', `http://127.0.0.1:${port}/r${fx.seq}.git`);
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
      ['git@github.com:owner/fx.repo.git', 'uses ssh'],
      ['ssh://git@github.com/owner/fx.repo.git', 'uses ssh'],
      ['git://github.com/owner/fx.repo.git', 'git://'],
      [`file://${fx.bare}`, 'file://'],
      [fx.bare, 'local path'],
      ['../elsewhere', 'local path'],
    ];
    const refs = cli(fx.repo, 'for-each-ref');
    for (const [url, why] of cases) {
      cli(fx.repo, 'remote', 'set-url', 'origin', url);
      for (const tool of ['git_fetch', 'git_pull', 'git_push']) {
        const { res, text: out } = await call(access(), tool, {});
        expect(res.isError, `${tool} ${url}`).toBe(true);
        expect(out, `${tool} ${url}`).toContain(why);
        expect(out, `${tool} ${url}`).toContain('only speaks https');
      }
    }
    expect(cli(fx.repo, 'for-each-ref')).toBe(refs);
    const missing = await call(access(), 'git_fetch', { remote: 'nope' });
    expect(missing.text).toBe("No remote 'nope' in the repository; configured: origin");
    const dashed = await call(access(), 'git_fetch', { remote: '--upload-pack=touch /tmp/x' });
    expect(dashed.res.isError).toBe(true);
    expect(dashed.text).toContain("must not start with '-'");
  });

  it('sends credentials from the environment when asked, and never shows them', async () => {
    fx.http.requireAuth = `alice:${TOKEN}`;
    const next = upstreamCommit('test.txt', 'secret fx.work\n');
    // Without credentials: a clear message naming the variables.
    const none = await call(access(), 'git_fetch', {});
    expect(none.res.isError).toBe(true);
    expect(none.text).toContain('GIT_TOKEN');
    expect(fx.http.seen.every((s) => s.authorization === undefined)).toBe(true);

    const env = { GIT_USERNAME: 'alice', GIT_TOKEN: TOKEN };
    const ok = await call(access(undefined, env), 'git_fetch', {});
    expect(ok.res.isError, ok.text).toBeFalsy();
    expect(cli(fx.repo, 'rev-parse', 'origin/master')).toBe(next);
    const expected = `Basic ${Buffer.from(`alice:${TOKEN}`).toString('base64')}`;
    expect(fx.http.seen.some((s) => s.authorization === expected)).toBe(true);
    expect(JSON.stringify(ok.res)).not.toContain(TOKEN);
    expect(JSON.stringify(ok.res)).not.toContain(expected.slice(6));

    // Push with credentials too.
    cli(fx.repo, 'merge', '-q', '--ff-only', 'origin/master');
    write(fx.repo, { 'x.txt': 'x\n' });
    cli(fx.repo, 'add', 'x.txt');
    cli(fx.repo, 'commit', '-q', '-m', 'x');
    const pushed = await call(access(undefined, env), 'git_push', {});
    expect(pushed.res.isError, pushed.text).toBeFalsy();
    expect(JSON.stringify(pushed.res)).not.toContain(TOKEN);

    // Wrong credentials: refused, and the message holds no secret.
    const wrong = await call(access(undefined, { GIT_TOKEN: `${TOKEN}-wrong` }), 'git_fetch', {});
    expect(wrong.res.isError).toBe(true);
    expect(wrong.text).toContain('rejected the credentials');
    expect(JSON.stringify(wrong.res)).not.toContain(TOKEN);

    // Credentials limited to other hosts are not offered here.
    fx.http.seen.length = 0;
    const scoped = await call(access(undefined, { ...env, GIT_CREDENTIAL_HOSTS: 'git.example.com' }), 'git_fetch', {});
    expect(scoped.res.isError).toBe(true);
    expect(scoped.text).toContain('GIT_CREDENTIAL_HOSTS');
    expect(fx.http.seen.every((s) => s.authorization === undefined)).toBe(true);
  });

  it('ignores and hides credentials written into the remote URL', async () => {
    const secret = 'hunter2-in-the-url';
    cli(fx.repo, 'remote', 'set-url', 'origin', `http://bob:${secret}@127.0.0.1:${fx.http.port}/r${fx.seq}.git`);
    fx.http.requireAuth = `alice:${TOKEN}`;
    const res = await call(access(), 'git_fetch', {});
    expect(res.res.isError).toBe(true);
    expect(JSON.stringify(res.res)).not.toContain(secret);
    expect(fx.http.seen.every((s) => s.authorization === undefined)).toBe(true);
    fx.http.requireAuth = null;
    const ok = await call(access(), 'git_fetch', {});
    expect(ok.res.isError, ok.text).toBeFalsy();
    expect(JSON.stringify(ok.res)).not.toContain(secret);
    expect(ok.structured?.url).toBe(`http://127.0.0.1:${fx.http.port}/r${fx.seq}.git`);
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
      expect(cli(fx.repo, 'rev-parse', 'origin/master')).toBe(next);
      expect(tunnels).toEqual([]);
      expect(requestLines.length).toBeGreaterThan(0);
      for (const line of requestLines) expect(line).toMatch(new RegExp(`^(GET|POST) http://127\\.0\\.0\\.1:${fx.http.port}/`));
    } finally {
      proxy.closeAllConnections();
      await new Promise((resolve) => proxy.close(resolve));
    }
  });

  it('the repository path is still confined to the allowed roots', async () => {
    using outside = tempDir();
    mkdirSync(join(outside.path, 'x'));
    await using pair = await connect({ repositories: [outside.path], remote: access() });
    const res = await pair.client.callTool({ name: 'git_fetch', arguments: { repo_path: fx.repo } });
    expect(res.isError).toBe(true);
    expect(text(res)).toContain('outside');
    expect(fx.http.seen).toEqual([]);
  });
});
