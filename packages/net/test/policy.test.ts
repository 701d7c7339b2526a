/** The policy's pure parts: address checks, the pinned lookup and `--allow-host` parsing (no network). */
import { describe, expect, it } from 'vitest';
import { checkUrl, guardedLookup, type NetworkPolicy, parseAllowHost, type ResolvedAddress } from '../src/index.js';

describe('resolve once, connect to what was checked', () => {
  function lookup(strictness: 'public-only' | 'no-metadata', addresses: ResolvedAddress[]) {
    let calls = 0;
    const fn = guardedLookup(strictness, async () => {
      calls++;
      return addresses;
    });
    return new Promise<{ error: Error | null; result: unknown; calls: number }>((resolve) =>
      fn('site.test', { all: true }, (error, result) => resolve({ error, result, calls })),
    );
  }

  it('hands the socket exactly the addresses it validated, from a single resolution', async () => {
    const addresses: ResolvedAddress[] = [
      { address: '93.184.215.14', family: 4 },
      { address: '2606:2800:21f:cb07:6820:80da:af6b:8b2c', family: 6 },
    ];
    const { error, result, calls } = await lookup('public-only', addresses);
    expect(error).toBeNull();
    expect(result).toEqual(addresses);
    expect(calls).toBe(1);
  });

  it('refuses a name when any of its addresses is refused (no picking the public one)', async () => {
    const { error } = await lookup('public-only', [
      { address: '93.184.215.14', family: 4 },
      { address: '127.0.0.1', family: 4 },
    ]);
    expect(error?.message).toContain('site.test resolves to 127.0.0.1, a loopback address');
  });
});

describe('--allow-host parsing', () => {
  it.each([
    ['example.com', { host: 'example.com' }],
    ['Example.COM:8080', { host: 'example.com', port: 8080 }],
    ['127.0.0.1:80', { host: '127.0.0.1', port: 80 }],
    ['0x7f.1', { host: '127.0.0.1' }],
    ['[::1]:3000', { host: '::1', port: 3000 }],
    ['::1', { host: '::1' }],
    ['bücher.example', { host: 'xn--bcher-kva.example' }],
  ])('%s', (raw, expected) => {
    expect(parseAllowHost(raw)).toEqual(expected);
  });
  it.each(['', 'host:0', 'host:99999', 'host:abc', 'http://x/y'])('refuses %j', (raw) => {
    expect(() => parseAllowHost(raw)).toThrow();
  });
});

describe('checkUrl', () => {
  const policy = (over: Partial<NetworkPolicy> = {}): NetworkPolicy => ({ allowPrivateNetwork: false, allowHosts: [], ...over });

  it('refuses loopback literals, naming this server by default', () => {
    expect(() => checkUrl(policy(), new URL('http://127.0.0.1:8080/'))).toThrow(
      'refused to connect: 127.0.0.1 is a loopback address. this server blocks private, loopback, link-local and cloud metadata destinations by default to prevent server-side request forgery; to allow it, start the server with --allow-host 127.0.0.1:8080 (this host only) or --allow-private-network (all private addresses).',
    );
  });

  it('names the policy owner when given', () => {
    expect(() => checkUrl(policy({ name: 'mcp-server-everything' }), new URL('http://[::1]/'))).toThrow(
      '::1 is a loopback address. mcp-server-everything blocks',
    );
  });

  it('--allow-private-network opens private ranges but not cloud metadata', () => {
    expect(() => checkUrl(policy({ allowPrivateNetwork: true }), new URL('http://10.1.2.3/'))).not.toThrow();
    expect(() => checkUrl(policy({ allowPrivateNetwork: true }), new URL('http://169.254.169.254/'))).toThrow('a cloud metadata address');
    expect(() => checkUrl(policy({ allowPrivateNetwork: true }), new URL('http://metadata.google.internal/'))).toThrow(
      'a cloud metadata address',
    );
  });

  it('--allow-host opens exactly that host (and port)', () => {
    const p = policy({ allowHosts: [parseAllowHost('127.0.0.1:3000')] });
    expect(() => checkUrl(p, new URL('http://127.0.0.1:3000/'))).not.toThrow();
    expect(() => checkUrl(p, new URL('http://127.0.0.1:3001/'))).toThrow('a loopback address');
    expect(() => checkUrl(policy({ allowHosts: [parseAllowHost('169.254.169.254')] }), new URL('http://169.254.169.254/'))).not.toThrow();
  });

  it('leaves host names to the connection (public names pass here)', () => {
    expect(() => checkUrl(policy(), new URL('https://example.com/'))).not.toThrow();
  });
});
