/** dispatchers.ts: one pooled dispatcher per strictness, each pinning the address its lookup checked (loopback only). */
import type { Agent } from 'undici';
import { describe, expect, it } from 'vitest';
import { createDispatchers } from '../src/dispatchers.js';
import { findCause } from '../src/errors.js';
import { BlockedDestinationError, type Resolver } from '../src/policy.js';
import { loopback } from './loopback.js';

/** `*.test` names resolve to 127.0.0.1; every lookup is counted. */
function testResolver() {
  const asked: string[] = [];
  const resolve: Resolver = async (hostname) => {
    asked.push(hostname);
    return [{ address: '127.0.0.1', family: 4 }];
  };
  return { resolve, asked };
}

const policy = { allowPrivateNetwork: false, allowHosts: [], name: 'mcp-server-test' };

describe('createDispatchers', () => {
  it('keeps one dispatcher per strictness until closed; create() makes one the pool does not keep', async () => {
    const dispatchers = createDispatchers({ policy, resolve: testResolver().resolve, timeoutMs: 5_000 });
    const strict = await dispatchers.pooled('public-only');
    expect(await dispatchers.pooled('public-only')).toBe(strict);
    expect(await dispatchers.pooled('open')).not.toBe(strict);
    const fresh = await dispatchers.create('public-only');
    expect(fresh).not.toBe(strict);
    expect(await dispatchers.pooled('public-only')).toBe(strict);
    await fresh.close();
    await dispatchers.close();
    expect((strict as Agent).closed).toBe(true);
    expect(await dispatchers.pooled('public-only')).not.toBe(strict);
    await dispatchers.close();
  });

  it('through a proxy, one dispatcher serves every strictness', async () => {
    const dispatchers = createDispatchers({ policy, resolve: testResolver().resolve, proxyUrl: 'http://127.0.0.1:9', timeoutMs: 5_000 });
    expect(await dispatchers.pooled('open')).toBe(await dispatchers.pooled('public-only'));
    await dispatchers.close();
  });

  it('through an http:// proxy, sends http:// URLs as absolute-form requests, credentials as Proxy-Authorization', async () => {
    // The proxy answers itself: an absolute-form request line is all it needs to see (no CONNECT).
    await using proxy = await loopback((_req, res) => res.end('proxied'));
    const { resolve, asked } = testResolver();
    const proxyUrl = `http://user:s%3Acret@127.0.0.1:${proxy.port}/`;
    const dispatchers = createDispatchers({ policy, resolve, proxyUrl, timeoutMs: 5_000 });
    const { request } = await dispatchers.undici();
    const response = await request('http://app.test:8080/x?y=1', { dispatcher: await dispatchers.pooled('public-only') });
    expect(await response.body.text()).toBe('proxied');
    expect(proxy.seen.map((r) => [r.method, r.url, r.headers.host])).toEqual([['GET', 'http://app.test:8080/x?y=1', 'app.test:8080']]);
    expect(proxy.seen[0]?.headers['proxy-authorization']).toBe(`Basic ${Buffer.from('user:s:cret').toString('base64')}`);
    expect(asked).toEqual([]);
    await dispatchers.close();
  });

  it('connects to the very address its lookup checked, resolving the name once', async () => {
    await using server = await loopback((_req, res) => res.end('pinned'));
    const { resolve, asked } = testResolver();
    const dispatchers = createDispatchers({ policy, resolve, timeoutMs: 5_000 });
    const { request } = await dispatchers.undici();
    const response = await request(`http://app.test:${server.port}/x`, { dispatcher: await dispatchers.pooled('open') });
    expect(await response.body.text()).toBe('pinned');
    expect(asked).toEqual(['app.test']);
    expect(server.seen[0]?.headers.host).toBe(`app.test:${server.port}`);
    await dispatchers.close();
  });

  it('refuses a name that resolves to a loopback address, without connecting', async () => {
    await using server = await loopback((_req, res) => res.end('should not be reached'));
    const dispatchers = createDispatchers({ policy, resolve: testResolver().resolve, timeoutMs: 5_000 });
    const { request } = await dispatchers.undici();
    const error = await request(`http://app.test:${server.port}/`, { dispatcher: await dispatchers.pooled('public-only') }).catch(
      (e: unknown) => e,
    );
    const blocked = findCause(error, (e): e is BlockedDestinationError => e instanceof BlockedDestinationError);
    expect(blocked?.message).toMatch(
      /^refused to connect: app\.test resolves to 127\.0\.0\.1, a loopback address\. mcp-server-test blocks/,
    );
    expect(server.seen).toHaveLength(0);
    // Private addresses are allowed one strictness down.
    const open = await request(`http://app.test:${server.port}/`, { dispatcher: await dispatchers.pooled('no-metadata') });
    expect(open.statusCode).toBe(200);
    await open.body.dump();
    await dispatchers.close();
  });
});
