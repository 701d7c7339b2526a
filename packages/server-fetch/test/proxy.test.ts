/**
 * `--proxy-url` against a proxy configured like Squid's default: plain `http://` URLs must go as
 * absolute-form requests (`GET http://host/path HTTP/1.1`), as curl and the reference's httpx send them,
 * because such a proxy refuses CONNECT to any port but 443. `https://` URLs keep the CONNECT tunnel.
 * The proxy and the origin are real servers on 127.0.0.1; no name is resolved locally.
 */

import type { ResolvedAddress } from '@mcpkit/net';
import { describe, expect, it } from 'vitest';
import { DEFAULT_USER_AGENT_AUTONOMOUS, DEFAULT_USER_AGENT_MANUAL } from '../src/constants.js';
import { callFetch, connect, redirect, routes, send, startProxy, startServer, text } from './helpers.js';

const PAGE = '<html><body><article><p>behind the proxy</p></article></body></html>';

/** A resolver that fails every lookup and counts them: through a proxy none may happen. */
function noDns() {
  const calls: string[] = [];
  const resolve = async (hostname: string): Promise<ResolvedAddress[]> => {
    calls.push(hostname);
    const error: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${hostname}`);
    error.code = 'ENOTFOUND';
    throw error;
  };
  return { resolve, calls };
}

describe('through an HTTP proxy that allows CONNECT to port 443 only', () => {
  it('robots.txt, the tool and the prompt send absolute-form requests for http:// URLs', async () => {
    await using target = await startServer(
      routes({ '/robots.txt': send('User-agent: *\nAllow: /\n', 'text/plain'), '/page': send(PAGE, 'text/html') }),
    );
    await using proxy = await startProxy(target.port);
    const { resolve, calls } = noDns();
    await using pair = await connect({ proxyUrl: proxy.origin, resolve });

    const url = 'http://intranet.corp.test:8080/page?q=1';
    const result = await callFetch(pair, { url });
    expect(result.isError).toBeFalsy();
    expect(text(result)).toBe(`Contents of ${url}:\nbehind the proxy`);
    const prompt = await pair.client.getPrompt({ name: 'fetch', arguments: { url } });
    expect(JSON.stringify(prompt.messages)).toContain('behind the proxy');

    expect(proxy.connects).toEqual([]);
    expect(proxy.requestLines).toEqual([
      'GET http://intranet.corp.test:8080/robots.txt HTTP/1.1',
      `GET ${url} HTTP/1.1`,
      `GET ${url} HTTP/1.1`,
    ]);
    // The origin sees the path, the requested Host and the agent of each kind of request.
    expect(target.requests.map((r) => [r.url, r.headers.host, r.headers['user-agent']])).toEqual([
      ['/robots.txt', 'intranet.corp.test:8080', DEFAULT_USER_AGENT_AUTONOMOUS],
      ['/page?q=1', 'intranet.corp.test:8080', DEFAULT_USER_AGENT_AUTONOMOUS],
      ['/page?q=1', 'intranet.corp.test:8080', DEFAULT_USER_AGENT_MANUAL],
    ]);
    expect(calls).toEqual([]);
  });

  it('sends the proxy URL credentials as Proxy-Authorization, to the proxy only', async () => {
    await using target = await startServer(send(PAGE, 'text/html'));
    await using proxy = await startProxy(target.port);
    const proxyUrl = proxy.origin.replace('http://', 'http://user:p%40ss@');
    await using pair = await connect({ proxyUrl, ignoreRobotsTxt: true, resolve: noDns().resolve });
    const result = await callFetch(pair, { url: 'http://site.test/' });
    expect(text(result)).toContain('behind the proxy');
    expect(JSON.stringify(result)).not.toContain('p@ss');
    expect(proxy.proxyAuthorizations).toEqual([`Basic ${Buffer.from('user:p@ss').toString('base64')}`]);
    expect(target.requests[0]?.headers).not.toHaveProperty('proxy-authorization');
  });

  it('checks every redirect hop as before: a hop to a loopback literal is refused and never sent', async () => {
    await using target = await startServer(
      routes({ '/hop': redirect('http://site.test/next'), '/next': redirect('http://127.0.0.1:9/secret') }),
    );
    await using proxy = await startProxy(target.port);
    await using pair = await connect({ proxyUrl: proxy.origin, ignoreRobotsTxt: true, resolve: noDns().resolve });
    const result = await callFetch(pair, { url: 'http://site.test/hop' });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('redirected to http://127.0.0.1:9/secret; refused to connect: 127.0.0.1 is a loopback address.');
    expect(proxy.requestLines).toEqual(['GET http://site.test/hop HTTP/1.1', 'GET http://site.test/next HTTP/1.1']);
  });

  it('keeps the CONNECT tunnel for https:// URLs', async () => {
    // The test proxy tunnels port 443 to the plain-HTTP target, so the TLS handshake fails: the CONNECT is what counts.
    await using target = await startServer(send(PAGE, 'text/html'));
    await using proxy = await startProxy(target.port);
    await using pair = await connect({ proxyUrl: proxy.origin, ignoreRobotsTxt: true, resolve: noDns().resolve });
    const result = await callFetch(pair, { url: 'https://secure.test/page' });
    expect(result.isError).toBe(true);
    expect(proxy.connects).toEqual(['secure.test:443']);
    expect(proxy.requestLines).toEqual([]);
  });
});
