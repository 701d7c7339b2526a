/**
 * SSRF policy, with private-network access OFF unless a test says otherwise. Loopback servers are
 * real; refused requests must never reach them. Non-loopback literals are refused before any
 * connection is attempted, so these tests never leave 127.0.0.1.
 */

import type { ResolvedAddress } from '@mcpkit/net';
import { describe, expect, it } from 'vitest';
import { callFetch, connect, redirect, routes, send, startProxy, startServer, text } from './helpers.js';

const PAGE = '<html><body><article><p>internal secret page</p></article></body></html>';

function loopbackResolver(names: string[]) {
  const calls: string[] = [];
  const resolve = async (hostname: string): Promise<ResolvedAddress[]> => {
    calls.push(hostname);
    if (names.includes(hostname)) return [{ address: '127.0.0.1', family: 4 }];
    const error: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${hostname}`);
    error.code = 'ENOTFOUND';
    throw error;
  };
  return { resolve, calls };
}

describe('default policy refuses non-public destinations in every spelling', () => {
  it.each([
    ['127.0.0.1', 'a loopback'],
    ['2130706433', 'a loopback'], // decimal
    ['0177.0.0.1', 'a loopback'], // octal
    ['0x7f.0.0.1', 'a loopback'], // hex
    ['0x7f000001', 'a loopback'],
    ['127.1', 'a loopback'], // short form
    ['[::1]', 'a loopback'],
    ['[::ffff:127.0.0.1]', 'an IPv4-mapped IPv6'],
    ['[::ffff:7f00:1]', 'an IPv4-mapped IPv6'],
  ])('http://%s:<port>/ is refused and never reached', async (host, kind) => {
    await using server = await startServer(send(PAGE, 'text/html'));
    await using pair = await connect({ ignoreRobotsTxt: true });
    const url = `http://${host}:${server.port}/`;
    const result = await callFetch(pair, { url });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain(`is ${kind} address`);
    expect(text(result)).toContain('--allow-host');
    expect(text(result)).toContain('--allow-private-network');
    expect(server.requests).toHaveLength(0);
  });

  it.each([
    ['10.0.0.1', 'a private (RFC 1918)'],
    ['172.16.5.4', 'a private (RFC 1918)'],
    ['192.168.1.1', 'a private (RFC 1918)'],
    ['100.64.0.1', 'a carrier-grade NAT (100.64.0.0/10)'],
    ['169.254.1.1', 'a link-local'],
    ['169.254.169.254', 'a cloud metadata'],
    ['0.0.0.0', 'an unspecified'],
    ['224.0.0.1', 'a multicast'],
    ['255.255.255.255', 'a broadcast'],
    ['[fe80::1]', 'a link-local'],
    ['[fc00::1]', 'a unique-local (fc00::/7)'],
    ['[fd00:ec2::254]', 'a cloud metadata'],
    ['[::]', 'an unspecified'],
    ['[64:ff9b::a9fe:a9fe]', 'a NAT64 (IPv4-embedding IPv6)'],
  ])('http://%s/ is refused as %s address', async (host, kind) => {
    await using pair = await connect({ ignoreRobotsTxt: true });
    const url = `http://${host}/latest/meta-data/`;
    const result = await callFetch(pair, { url });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(
      new RegExp(
        `^Failed to fetch ${url.replace(/[.[\]/]/g, '\\$&')}: refused to connect: .* is ${kind.replace(/[()/.]/g, '\\$&')} address`,
      ),
    );
  });

  it('refuses cloud metadata host names before resolving them', async () => {
    const { resolve, calls } = loopbackResolver([]);
    await using pair = await connect({ ignoreRobotsTxt: true, resolve });
    const result = await callFetch(pair, { url: 'http://metadata.google.internal/computeMetadata/v1/' });
    expect(text(result)).toContain('metadata.google.internal is a cloud metadata address');
    expect(calls).toEqual([]);
  });

  it('refuses a host name that resolves to loopback (checked at connection time, robots.txt included)', async () => {
    await using server = await startServer(send(PAGE, 'text/html'));
    const { resolve } = loopbackResolver(['intranet.test']);
    await using pair = await connect({ resolve });
    const url = `http://intranet.test:${server.port}/`;
    const result = await callFetch(pair, { url });
    expect(text(result)).toBe(
      `Failed to fetch ${url}: refused to connect: intranet.test resolves to 127.0.0.1, a loopback address. mcp-server-fetch blocks private, loopback, link-local and cloud metadata destinations by default to prevent server-side request forgery; to allow it, start the server with --allow-host intranet.test (this host only) or --allow-private-network (all private addresses).`,
    );
    expect(server.requests).toHaveLength(0);
  });

  it('refuses localhost through the system resolver', async () => {
    await using server = await startServer(send(PAGE, 'text/html'));
    await using pair = await connect({ ignoreRobotsTxt: true });
    const result = await callFetch(pair, { url: `http://localhost:${server.port}/` });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('localhost resolves to');
    expect(server.requests).toHaveLength(0);
  });

  it('applies to the prompt too', async () => {
    await using server = await startServer(send(PAGE, 'text/html'));
    await using pair = await connect();
    const url = `http://127.0.0.1:${server.port}/`;
    const result = await pair.client.getPrompt({ name: 'fetch', arguments: { url } });
    expect(result.description).toBe(`Failed to fetch ${url}`);
    expect(JSON.stringify(result.messages)).toContain('is a loopback address');
    expect(server.requests).toHaveLength(0);
  });
});

describe('every redirect hop is checked', () => {
  it('a redirect from an allowed host to a refused one is not followed', async () => {
    await using internal = await startServer(send(PAGE, 'text/html'));
    await using entry = await startServer(redirect(`http://127.0.0.1:${internal.port}/admin`, 302));
    await using pair = await connect({ allowHosts: [`127.0.0.1:${entry.port}`], ignoreRobotsTxt: true });
    const result = await callFetch(pair, { url: `${entry.origin}/go` });
    expect(text(result)).toMatch(
      new RegExp(
        `^Failed to fetch ${entry.origin}/go: redirected to http://127\\.0\\.0\\.1:${internal.port}/admin; refused to connect: 127\\.0\\.0\\.1 is a loopback address`,
      ),
    );
    expect(text(result)).toContain(`--allow-host 127.0.0.1:${internal.port}`);
    expect(internal.requests).toHaveLength(0);
  });

  it('a redirect to a name resolving to loopback is refused', async () => {
    await using internal = await startServer(send(PAGE, 'text/html'));
    await using entry = await startServer(redirect(`http://rebound.test:${internal.port}/`, 307));
    const { resolve } = loopbackResolver(['rebound.test']);
    await using pair = await connect({ allowHosts: [`127.0.0.1:${entry.port}`], ignoreRobotsTxt: true, resolve });
    const result = await callFetch(pair, { url: `${entry.origin}/` });
    expect(text(result)).toContain('rebound.test resolves to 127.0.0.1, a loopback address');
    expect(internal.requests).toHaveLength(0);
  });

  it('a redirect to another scheme is refused', async () => {
    await using entry = await startServer(redirect('file:///etc/passwd', 302));
    await using pair = await connect({ allowHosts: [`127.0.0.1:${entry.port}`], ignoreRobotsTxt: true });
    const result = await callFetch(pair, { url: `${entry.origin}/` });
    expect(text(result)).toBe(
      `Failed to fetch ${entry.origin}/: redirected to file:///etc/passwd; only http and https URLs can be fetched, not file`,
    );
  });

  it('robots.txt redirects are checked too', async () => {
    await using internal = await startServer(send('User-agent: *\nAllow: /', 'text/plain'));
    await using entry = await startServer(
      routes({
        '/robots.txt': redirect(`http://127.0.0.1:${internal.port}/robots.txt`),
        '/p': send(PAGE, 'text/html'),
      }),
    );
    await using pair = await connect({ allowHosts: [`127.0.0.1:${entry.port}`] });
    const result = await callFetch(pair, { url: `${entry.origin}/p` });
    expect(text(result)).toMatch(
      new RegExp(
        `^Failed to fetch ${entry.origin}/p: robots\\.txt redirected to http://127\\.0\\.0\\.1:${internal.port}/robots\\.txt; refused`,
      ),
    );
    expect(internal.requests).toHaveLength(0);
    expect(entry.hits('/p')).toBe(0);
  });
});

describe('opening it deliberately', () => {
  it('--allow-host HOST:PORT allows that port only', async () => {
    await using a = await startServer(send(PAGE, 'text/html'));
    await using b = await startServer(send(PAGE, 'text/html'));
    await using pair = await connect({ allowHosts: [`127.0.0.1:${a.port}`], ignoreRobotsTxt: true });
    expect(text(await callFetch(pair, { url: `${a.origin}/` }))).toContain('internal secret page');
    expect((await callFetch(pair, { url: `${b.origin}/` })).isError).toBe(true);
    expect(b.requests).toHaveLength(0);
  });

  it('--allow-host HOST allows every port; other spellings of the address are the same host', async () => {
    await using a = await startServer(send(PAGE, 'text/html'));
    await using pair = await connect({ allowHosts: ['127.0.0.1'], ignoreRobotsTxt: true });
    expect(text(await callFetch(pair, { url: `http://0x7f000001:${a.port}/` }))).toContain('internal secret page');
  });

  it('--allow-host NAME allows a name whatever it resolves to, and only that name', async () => {
    await using server = await startServer(send(PAGE, 'text/html'));
    const { resolve } = loopbackResolver(['dev.test', 'other.test']);
    await using pair = await connect({ allowHosts: [`dev.test:${server.port}`], ignoreRobotsTxt: true, resolve });
    expect(text(await callFetch(pair, { url: `http://DEV.test:${server.port}/` }))).toContain('internal secret page');
    expect((await callFetch(pair, { url: `http://other.test:${server.port}/` })).isError).toBe(true);
    expect(server.requests).toHaveLength(1);
  });

  it('--allow-private-network allows loopback and private names, but not cloud metadata', async () => {
    await using server = await startServer(send(PAGE, 'text/html'));
    const { resolve } = loopbackResolver(['intranet.test']);
    await using pair = await connect({ allowPrivateNetwork: true, ignoreRobotsTxt: true, resolve });
    expect(text(await callFetch(pair, { url: `${server.origin}/` }))).toContain('internal secret page');
    expect(text(await callFetch(pair, { url: `http://intranet.test:${server.port}/` }))).toContain('internal secret page');
    for (const url of ['http://169.254.169.254/latest/', 'http://[::ffff:169.254.169.254]/', 'http://metadata.google.internal/']) {
      const result = await callFetch(pair, { url });
      expect(text(result)).toContain('a cloud metadata address');
      expect(text(result)).toContain('--allow-private-network does not cover metadata endpoints');
    }
  });

  it('never takes a proxy from tool input', async () => {
    await using proxy = await startProxy(1);
    await using pair = await connect({ ignoreRobotsTxt: true });
    const result = await callFetch(pair, { url: 'http://10.1.2.3/', proxy: proxy.origin, proxy_url: proxy.origin });
    expect(text(result)).toContain('is a private (RFC 1918) address');
    expect(proxy.connects).toEqual([]);
    expect(proxy.requestLines).toEqual([]);
  });
});

describe('through a configured proxy', () => {
  it('leaves name resolution to the proxy: works where the only DNS is behind it (robots.txt included)', async () => {
    await using target = await startServer(routes({ '/page': send(PAGE, 'text/html') }));
    await using proxy = await startProxy(target.port);
    const { resolve, calls } = loopbackResolver([]); // no local DNS at all
    await using pair = await connect({ proxyUrl: proxy.origin, resolve });
    const result = await callFetch(pair, { url: 'http://intranet.corp.test/page' });
    expect(text(result)).toBe('Contents of http://intranet.corp.test/page:\ninternal secret page');
    expect(proxy.requestLines).toEqual([
      'GET http://intranet.corp.test/robots.txt HTTP/1.1',
      'GET http://intranet.corp.test/page HTTP/1.1',
    ]);
    expect(target.requests.map((r) => r.url)).toEqual(['/robots.txt', '/page']);
    expect(calls).toEqual([]);
  });

  it('still refuses what the URL shows: IP literals, loopback names and metadata names', async () => {
    await using proxy = await startProxy(1);
    const { resolve } = loopbackResolver(['localhost', 'app.localhost']);
    await using pair = await connect({ proxyUrl: proxy.origin, ignoreRobotsTxt: true, resolve });
    for (const [url, reason] of [
      ['http://127.0.0.1:8080/', '127.0.0.1 is a loopback address'],
      ['http://[::1]/', '::1 is a loopback address'],
      ['http://10.0.0.5/', '10.0.0.5 is a private (RFC 1918) address'],
      ['http://localhost:3000/', 'localhost is a loopback address'],
      ['http://app.localhost/', 'app.localhost is a loopback address'],
      ['http://metadata.google.internal/', 'metadata.google.internal is a cloud metadata address'],
    ] as const) {
      const result = await callFetch(pair, { url });
      expect(result.isError).toBe(true);
      expect(text(result)).toContain(`refused to connect: ${reason}.`);
    }
    expect(proxy.connects).toEqual([]);
    expect(proxy.requestLines).toEqual([]);
  });

  it('--allow-private-network and --allow-host open loopback names through the proxy too', async () => {
    await using target = await startServer(send(PAGE, 'text/html'));
    await using proxy = await startProxy(target.port);
    await using open = await connect({ proxyUrl: proxy.origin, ignoreRobotsTxt: true, allowPrivateNetwork: true });
    expect(text(await callFetch(open, { url: 'http://localhost:3000/' }))).toContain('internal secret page');
    await using named = await connect({ proxyUrl: proxy.origin, ignoreRobotsTxt: true, allowHosts: ['dev.localhost'] });
    expect(text(await callFetch(named, { url: 'http://dev.localhost/' }))).toContain('internal secret page');
  });
});
