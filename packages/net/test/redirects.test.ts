/** redirects.ts: every hop checked before it is sent, the redirect limit, credentials kept to their origin (loopback only). */
import { describe, expect, it } from 'vitest';
import { startDeadline } from '../src/deadline.js';
import { createDispatchers } from '../src/dispatchers.js';
import { HttpError } from '../src/errors.js';
import type { NetworkPolicy } from '../src/policy.js';
import { checkHop, type FollowOptions, flatHeaders, followRedirects } from '../src/redirects.js';
import { send } from '../src/send.js';
import { loopback } from './loopback.js';

const privateAllowed: NetworkPolicy = { allowPrivateNetwork: true, allowHosts: [] };
const strict: NetworkPolicy = { allowPrivateNetwork: false, allowHosts: [], name: 'mcp-server-test' };

/** followRedirects over the real pinned dispatchers; `sent` lists each hop's index, URL and headers. */
async function follow(url: string, options: Partial<FollowOptions> & { maxRedirects: number }) {
  const policy = options.policy ?? privateAllowed;
  const dispatchers = createDispatchers({ policy, resolve: async () => [{ address: '127.0.0.1', family: 4 }], timeoutMs: 5_000 });
  const deadline = startDeadline({ timeoutMs: 5_000 });
  const sent: { index: number; url: string; headers: Record<string, string> }[] = [];
  try {
    const answer = await followRedirects(url, {
      headers: {},
      ...options,
      policy,
      send: (hop, index, headers) => {
        sent.push({ index, url: hop.target.href, headers });
        return send(dispatchers, hop, deadline, { method: 'GET', headers });
      },
    });
    return { answer, sent, text: await answer.response.body.text() };
  } finally {
    deadline.finish();
    await dispatchers.close();
  }
}

describe('checkHop', () => {
  it('allows http(s) only, naming the hop', () => {
    expect(() => checkHop({ policy: privateAllowed }, new URL('ftp://example.com/x'), 'redirected to ftp://example.com/x; ')).toThrow(
      new HttpError('scheme', 'redirected to ftp://example.com/x; only http and https URLs can be fetched, not ftp'),
    );
  });

  it('applies the policy, then the caller’s hook, and says how strictly the address is checked', () => {
    const refusal = (() => {
      try {
        checkHop({ policy: strict }, new URL('http://127.0.0.1:8080/'), '');
      } catch (error) {
        return error;
      }
    })();
    expect(refusal).toMatchObject({
      kind: 'blocked',
      message: expect.stringMatching(/^refused to connect: 127\.0\.0\.1 is a loopback address/),
    });
    const hook = (url: URL) => {
      if (url.protocol !== 'https:') throw new Error('https only');
    };
    expect(() => checkHop({ policy: privateAllowed, checkUrl: hook }, new URL('http://127.0.0.1/'), '')).toThrow(
      new HttpError('blocked', 'https only'),
    );
    expect(checkHop({ policy: strict }, new URL('https://example.com/'), '')).toBe('public-only');
    expect(checkHop({ policy: privateAllowed }, new URL('http://10.0.0.1/'), '')).toBe('no-metadata');
    expect(checkHop({ policy: { ...strict, allowHosts: [{ host: 'localhost' }] } }, new URL('http://localhost:3000/'), '')).toBe('open');
  });

  it('through a proxy, refuses loopback names the proxy would resolve', () => {
    expect(() => checkHop({ policy: strict, proxyUrl: 'http://proxy.example:8080' }, new URL('http://localhost/'), '')).toThrow(
      /refused to connect: localhost is a loopback address/,
    );
    expect(checkHop({ policy: strict }, new URL('http://localhost/'), '')).toBe('public-only');
  });
});

describe('flatHeaders', () => {
  it('lower-cases names and joins repeated values', () => {
    expect(flatHeaders({ 'Content-Type': 'text/plain', 'set-cookie': ['a=1', 'b=2'], gone: undefined })).toEqual({
      'content-type': 'text/plain',
      'set-cookie': 'a=1, b=2',
    });
  });
});

describe('followRedirects', () => {
  it('follows a chain, checking and sending every hop, and resolves to the answer', async () => {
    await using server = await loopback((req, res) => {
      if (req.url === '/a') res.writeHead(301, { location: '/b' }).end();
      else if (req.url === '/b') res.writeHead(307, { location: '/c' }).end();
      else res.end(`at ${req.url}`);
    });
    const { answer, sent, text } = await follow(`${server.origin}/a`, { maxRedirects: 2 });
    expect(text).toBe('at /c');
    expect(answer.target.href).toBe(`${server.origin}/c`);
    expect(answer.headers['content-length']).toBe('5');
    expect(sent.map((s) => [s.index, s.url])).toEqual([
      [0, `${server.origin}/a`],
      [1, `${server.origin}/b`],
      [2, `${server.origin}/c`],
    ]);
  });

  it('fails past the limit, or with a redirect limit of 0 answers the redirect itself when asked to', async () => {
    await using server = await loopback((req, res) => {
      if (req.url === '/loop') res.writeHead(302, { location: '/loop' }).end();
      else res.end();
    });
    await expect(follow(`${server.origin}/loop`, { maxRedirects: 3 })).rejects.toThrow(
      new HttpError('redirects', "TooManyRedirects('Exceeded maximum allowed redirects.')"),
    );
    expect(server.seen).toHaveLength(4);
    await expect(follow(`${server.origin}/loop`, { maxRedirects: 0 })).rejects.toMatchObject({ kind: 'redirects' });
    const { answer } = await follow(`${server.origin}/loop`, { maxRedirects: 0, answerRedirects: true });
    expect(answer.response.statusCode).toBe(302);
    expect(answer.headers.location).toBe('/loop');
  });

  it('refuses a redirect to a blocked destination before sending it', async () => {
    await using server = await loopback((_req, res) => res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end());
    const error = await follow(`${server.origin}/`, { maxRedirects: 5 }).catch((e: unknown) => e);
    expect(error).toMatchObject({
      kind: 'blocked',
      message: expect.stringMatching(
        /^redirected to http:\/\/169\.254\.169\.254\/latest\/meta-data\/; refused to connect: 169\.254\.169\.254 is a cloud metadata address/,
      ),
    });
  });

  it('reports a Location that is not a URL', async () => {
    await using server = await loopback((_req, res) => res.writeHead(302, { location: 'http://[bad' }).end());
    await expect(follow(`${server.origin}/`, { maxRedirects: 5 })).rejects.toThrow(
      new HttpError('connect', "RemoteProtocolError('Invalid redirect location: http://[bad')"),
    );
  });

  it('keeps credentials on a same-origin redirect and drops them on the way to another origin', async () => {
    await using other = await loopback((_req, res) => res.end('other'));
    await using server = await loopback((req, res) => {
      if (req.url === '/same') res.writeHead(302, { location: '/cross' }).end();
      else res.writeHead(302, { location: `${other.origin}/landing` }).end();
    });
    const headers = { Authorization: 'Bearer t', cookie: 'a=1', 'Proxy-Authorization': 'Basic x', 'x-kept': 'yes' };
    const { text } = await follow(`${server.origin}/same`, { maxRedirects: 5, headers });
    expect(text).toBe('other');
    expect(server.seen.map((s) => [s.url, s.headers.authorization, s.headers.cookie])).toEqual([
      ['/same', 'Bearer t', 'a=1'],
      ['/cross', 'Bearer t', 'a=1'],
    ]);
    expect(other.seen[0]?.headers).not.toHaveProperty('authorization');
    expect(other.seen[0]?.headers).not.toHaveProperty('cookie');
    expect(other.seen[0]?.headers).not.toHaveProperty('proxy-authorization');
    expect(other.seen[0]?.headers['x-kept']).toBe('yes');
  });
});
