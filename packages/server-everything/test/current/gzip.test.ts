/**
 * `gzip-file-as-resource`: data: URIs decoded in-process, http(s) only through the injected downloader
 * (the network policy) and refused without one, the reference's GZIP_* limits as options, session
 * resources (listed, readable, replaced, budgeted).
 */
import { gunzipSync } from 'node:zlib';
import type { BlobResourceContents, CallToolResult } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import type { EverythingOptions } from '../../src/context.js';
import type { Download, DownloadOptions } from '../../src/shared/download.js';
import { createTestClock } from '../clock.js';
import { connectCurrent, dataUri, errorText, ok, text, until } from './helpers.js';

async function gzip(args: Record<string, unknown>, options: EverythingOptions = {}) {
  await using pair = await connectCurrent(options);
  return (await pair.client.callTool({ name: 'gzip-file-as-resource', arguments: args })) as CallToolResult;
}

const gunzip = (blob: string) => gunzipSync(Buffer.from(blob, 'base64')).toString('utf8');

describe('gzip-file-as-resource', () => {
  it('compresses a data: URI into a session resource that can be listed and read', async () => {
    await using pair = await connectCurrent();
    let listChanged = 0;
    pair.client.setNotificationHandler('notifications/resources/list_changed', () => void listChanged++);
    const result = await pair.client.callTool({
      name: 'gzip-file-as-resource',
      arguments: { name: 'notes.txt.gz', data: dataUri('Hello, World!') },
    });
    const uri = 'demo://resource/session/notes.txt.gz';
    expect(result.content).toEqual([{ type: 'resource_link', uri, name: 'notes.txt.gz', mimeType: 'application/gzip' }]);
    expect((await pair.client.listResources()).resources.at(-1)).toEqual({ uri, name: 'notes.txt.gz', mimeType: 'application/gzip' });
    const [contents] = (await pair.client.readResource({ uri })).contents as BlobResourceContents[];
    expect(contents).toMatchObject({ uri, mimeType: 'application/gzip' });
    expect(gunzip(contents!.blob)).toBe('Hello, World!');
    await until(() => listChanged >= 1, 2000, 'resources/list_changed');
  });

  it('returns the resource itself with outputType "resource", gzip of exactly the input bytes', async () => {
    const result = await gzip({ data: 'data:text/plain;base64,aGVsbG8=', outputType: 'resource' });
    // The reference's observed blob for "hello".
    expect(result.content).toEqual([
      {
        type: 'resource',
        resource: {
          uri: 'demo://resource/session/README.md.gz',
          mimeType: 'application/gzip',
          blob: 'H4sIAAAAAAAAA8tIzcnJBwCGphA2BQAAAA==',
        },
      },
    ]);
  });

  it('decodes percent-encoded and base64 data: URIs as fetch would', async () => {
    const plain = (await gzip({ data: 'data:,caf%C3%A9%20au%20lait', outputType: 'resource' })).content[0] as {
      resource: { blob: string };
    };
    expect(gunzip(plain.resource.blob)).toBe('café au lait');
    const unpadded = (await gzip({ data: 'data:text/plain;base64,aGVs', outputType: 'resource' })).content[0] as {
      resource: { blob: string };
    };
    expect(gunzip(unpadded.resource.blob)).toBe('hel');
  });

  it('replaces the session resource of the same name', async () => {
    await using pair = await connectCurrent();
    const call = (content: string) =>
      pair.client.callTool({ name: 'gzip-file-as-resource', arguments: { name: 'same.gz', data: dataUri(content) } });
    await call('first');
    await call('second');
    const uris = (await pair.client.listResources()).resources.map((r) => r.uri).filter((u) => u.includes('/session/'));
    expect(uris).toEqual(['demo://resource/session/same.gz']);
    const [contents] = (await pair.client.readResource({ uri: uris[0]! })).contents as BlobResourceContents[];
    expect(gunzip(contents!.blob)).toBe('second');
  });

  it('refuses a file larger than gzipMaxFetchSize with the reference’s message', async () => {
    const data = dataUri('hello');
    expect(errorText(await gzip({ data }, { gzipMaxFetchSize: 4 }))).toBe(`Response from ${data} exceeds 4 bytes`);
    ok(await gzip({ data }, { gzipMaxFetchSize: 5 }));
  });

  it('refuses a malformed data: URI clearly', async () => {
    expect(errorText(await gzip({ data: 'data:text/plain;base64,!!!' }))).toBe(
      'Error processing file data:text/plain;base64,!!!: the data: URI is not valid base64',
    );
    expect(errorText(await gzip({ data: 'data:nocomma' }))).toBe(
      'Error processing file data:nocomma: the data: URI has no comma before its data',
    );
  });

  it('refuses an http(s) URL when the server has no downloader, and stays up', async () => {
    await using pair = await connectCurrent();
    const result = await pair.client.callTool({ name: 'gzip-file-as-resource', arguments: {} });
    expect(errorText(result)).toBe(
      "Error processing file https://raw.githubusercontent.com/modelcontextprotocol/servers/refs/heads/main/README.md: this server does not fetch https:// URLs (no network policy is configured); pass the file's content as a data: URI instead",
    );
    text(await pair.client.callTool({ name: 'echo', arguments: { message: 'still up' } }));
  });

  it('fetches http(s) through the injected downloader, with the size limit and a signal', async () => {
    const calls: [string, DownloadOptions][] = [];
    const download: Download = async (url, options) => {
      calls.push([url.href, options]);
      return new TextEncoder().encode(`body of ${url.href}`);
    };
    const result = await gzip(
      { name: 'page.gz', data: 'https://example.com/page', outputType: 'resource' },
      { download, gzipMaxFetchSize: 1000 },
    );
    expect(calls).toEqual([['https://example.com/page', { signal: expect.any(AbortSignal), maxBytes: 1000 }]]);
    expect(gunzip((result.content[0] as { resource: { blob: string } }).resource.blob)).toBe('body of https://example.com/page');
  });

  it('refuses a downloaded body over the limit even if the downloader did not', async () => {
    const download: Download = async () => new Uint8Array(11);
    expect(errorText(await gzip({ data: 'http://example.com/x' }, { download, gzipMaxFetchSize: 10 }))).toBe(
      'Response from http://example.com/x exceeds 10 bytes',
    );
  });

  it('passes the downloader’s refusal on, prefixed like the reference’s URL errors', async () => {
    const download: Download = async () => {
      throw new Error('refused: 10.0.0.1 is a private (RFC 1918) address');
    };
    expect(errorText(await gzip({ data: 'http://intranet.example/x' }, { download }))).toBe(
      'Error processing file http://intranet.example/x: refused: 10.0.0.1 is a private (RFC 1918) address',
    );
  });

  it('aborts a download that takes longer than gzipMaxFetchTimeMs, counted on the session clock', async () => {
    let signal: AbortSignal | undefined;
    const download: Download = (_url, options) => {
      signal = options.signal;
      return new Promise((_resolve, reject) => options.signal.addEventListener('abort', () => reject(options.signal.reason)));
    };
    const clock = createTestClock();
    await using pair = await connectCurrent({ download, gzipMaxFetchTimeMs: 30_000, scheduler: clock.scheduler });
    let result: CallToolResult | undefined;
    const call = pair.client.callTool({ name: 'gzip-file-as-resource', arguments: { data: 'https://slow.example/x' } }).then((r) => {
      result = r as CallToolResult;
    });
    await until(() => signal !== undefined, 2000, 'the download to start');
    // The limit's timer is on the clock: 1 ms short of it the download still runs, at it the call ends.
    await clock.advance(29_999);
    expect(signal?.aborted).toBe(false);
    expect(result).toBeUndefined();
    await clock.advance(1);
    await call;
    expect(errorText(result!)).toBe('Fetching https://slow.example/x took more than 30000 ms and was aborted.');
    expect(signal?.aborted).toBe(true);
  });

  it('clears the time limit when the download ends first', async () => {
    const clock = createTestClock();
    const download: Download = async () => new TextEncoder().encode('fast');
    await using pair = await connectCurrent({ download, scheduler: clock.scheduler });
    const before = clock.pending; // the session's own (the first roots request)
    const result = (await pair.client.callTool({
      name: 'gzip-file-as-resource',
      arguments: { data: 'https://fast.example/x', outputType: 'resource' },
    })) as CallToolResult;
    expect(gunzip((result.content[0] as { resource: { blob: string } }).resource.blob)).toBe('fast');
    expect(clock.pending).toBe(before); // the limit's timer went with the call
  });

  it('aborts the download when the client cancels the call', async () => {
    let signal: AbortSignal | undefined;
    const download: Download = (_url, options) => {
      signal = options.signal;
      return new Promise((_resolve, reject) => options.signal.addEventListener('abort', () => reject(options.signal.reason)));
    };
    await using pair = await connectCurrent({ download });
    const controller = new AbortController();
    const call = pair.client.callTool(
      { name: 'gzip-file-as-resource', arguments: { data: 'https://slow.example/x' } },
      {
        signal: controller.signal,
      },
    );
    await until(() => signal !== undefined, 2000, 'the download to start');
    controller.abort('no longer needed');
    await expect(call).rejects.toThrow();
    await until(() => signal!.aborted, 2000, 'the download to be aborted');
  });

  it('only fetches from gzipAllowedDomains (and their subdomains) when set', async () => {
    const download: Download = async () => new Uint8Array([1, 2, 3]);
    const options = { download, gzipAllowedDomains: [' Example.COM ', ''] };
    ok(await gzip({ data: 'https://example.com/a' }, options));
    ok(await gzip({ data: 'https://cdn.example.com/a' }, options));
    expect(errorText(await gzip({ data: 'https://notexample.com/a' }, options))).toBe(
      'Error processing file https://notexample.com/a: Domain notexample.com is not in the allowed domains list.',
    );
    ok(await gzip({ data: dataUri('data: URIs are not fetched') }, options));
  });

  it('refuses other schemes before anything is fetched', async () => {
    let called = false;
    const download: Download = async () => {
      called = true;
      return new Uint8Array();
    };
    expect(errorText(await gzip({ data: 'file:///etc/passwd' }, { download }))).toBe(
      'Error processing file file:///etc/passwd: Unsupported URL protocol for file:///etc/passwd. Only http, https, and data URLs are supported.',
    );
    expect(called).toBe(false);
  });

  it('encodes a name into a URI that can be read back, and refuses dot segments', async () => {
    await using pair = await connectCurrent();
    const result = (await pair.client.callTool({
      name: 'gzip-file-as-resource',
      arguments: { name: 'my file#1.gz', data: dataUri('x') },
    })) as CallToolResult;
    const uri = 'demo://resource/session/my%20file%231.gz';
    expect(result.content).toEqual([{ type: 'resource_link', uri, name: 'my file#1.gz', mimeType: 'application/gzip' }]);
    expect((await pair.client.readResource({ uri })).contents).toHaveLength(1);
    const nested = (await pair.client.callTool({
      name: 'gzip-file-as-resource',
      arguments: { name: 'dir/file.gz', data: dataUri('x') },
    })) as CallToolResult;
    expect((nested.content[0] as { uri: string }).uri).toBe('demo://resource/session/dir/file.gz');
    const outside = await pair.client.callTool({
      name: 'gzip-file-as-resource',
      arguments: { name: '../static/document/features.md', data: dataUri('x') },
    });
    expect(errorText(outside)).toBe(
      'Invalid name ../static/document/features.md: it cannot be part of a resource URI (no "." or ".." path segments).',
    );
  });

  it('caps the bytes of session resources per session; replacing one frees its share', async () => {
    await using pair = await connectCurrent({ sessionResourcesMaxBytes: 80 });
    const call = (name: string) =>
      pair.client.callTool({ name: 'gzip-file-as-resource', arguments: { name, data: dataUri('0123456789') } });
    ok(await call('a.gz')); // 30 bytes gzipped, 40 in base64
    ok(await call('b.gz'));
    ok(await call('a.gz')); // a replacement: still 80
    expect(errorText(await call('c.gz'))).toBe(
      "Session resources would take 120 bytes, more than this session's limit of 80; replace an existing one (same name) instead.",
    );
    expect((await pair.client.listResources()).resources.filter((r) => r.uri.includes('/session/')).map((r) => r.name)).toEqual([
      'b.gz',
      'a.gz',
    ]);
  });
});
