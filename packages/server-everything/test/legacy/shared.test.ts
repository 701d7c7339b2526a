import { describe, expect, it } from 'vitest';
import { decodeDataUri } from '../../src/shared/dataUri.js';
import { type Download, readUrl, refuseDownload } from '../../src/shared/download.js';
import { isSecretName, isSecretValue, REDACTED, redactEnv } from '../../src/shared/envSecrets.js';
import { createZip, ZIP_MAX_ENTRIES } from '../../src/shared/zip.js';
import { readZip } from './helpers.js';

describe('shared/envSecrets', () => {
  it('treats names containing KEY, TOKEN, SECRET, PASSWORD, CREDENTIAL or AUTH (any case) as secret', () => {
    for (const name of [
      'OPENAI_API_KEY',
      'STRIPEKEY',
      'apikey',
      'GH_TOKEN',
      'githubtoken',
      'CLIENT_SECRET',
      'PGPASSWORD',
      'GOOGLE_APPLICATION_CREDENTIALS',
      'AUTH_HEADER',
      'GITHUBAUTH',
      'DB_PASS',
      'MYSQL_PWD',
      'SENTRY_DSN',
      'SESSION_COOKIE',
    ]) {
      expect(isSecretName(name), name).toBe(true);
    }
    for (const name of ['HOME', 'PATH', 'PWD', 'OLDPWD', 'SHELL', 'LANG', 'NODE_ENV', 'PASSAGE', 'COMPASS_DIR']) {
      expect(isSecretName(name), name).toBe(false);
    }
  });

  it('treats connection strings with a password and well-known token formats as secret whatever the name', () => {
    for (const value of [
      'postgres://u:p@h',
      'postgres://ann:hunter2@db.internal:5432/app',
      'jdbc:mysql://root:pw@localhost/db',
      'redis://:onlypassword@cache:6379',
      'first,mongodb://a:b@h1',
      'ghp_0123456789abcdefghij0123',
      'Bearer sk-ant-api03-abcdefghijklmnop',
      'AKIAIOSFODNN7EXAMPLE',
      'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.sig',
    ]) {
      expect(isSecretValue(value), value).toBe(true);
    }
    for (const value of [
      'postgres://user@host/db',
      'https://example.com/path@v1',
      'https://registry.npmjs.org/',
      '/usr/local/bin:/usr/bin',
      'git@github.com:org/repo.git',
      'en_US.UTF-8',
      'task-0123456789abcdefghij',
    ]) {
      expect(isSecretValue(value), value).toBe(false);
    }
  });

  it('redactEnv keeps order and empty values, and returns everything with showSecrets', () => {
    const env = { A: '1', API_KEY: 'abc', B: 'postgres://u:p@h', EMPTY_TOKEN: '', C: '3' };
    const redacted = redactEnv(env);
    expect(Object.keys(redacted)).toEqual(Object.keys(env));
    expect(redacted).toEqual({ A: '1', API_KEY: REDACTED, B: REDACTED, EMPTY_TOKEN: '', C: '3' });
    expect(redactEnv(env, { showSecrets: true })).toEqual(env);
    expect(REDACTED).toBe('[redacted]');
  });
});

describe('shared/dataUri', () => {
  it('decodes base64 and percent-encoded data, with the media type', () => {
    const b64 = decodeDataUri('data:text/plain;base64,SGVsbG8=', 100);
    expect(b64).toEqual({ mimeType: 'text/plain', bytes: Buffer.from('Hello') });
    expect(Buffer.from(decodeDataUri('data:,a%20b%2c%E2%82%ACc', 100).bytes).toString()).toBe('a b,€c');
    expect(decodeDataUri('data:,x', 100).mimeType).toBe('text/plain;charset=US-ASCII');
    expect(decodeDataUri('data:;charset=utf-8,x', 100).mimeType).toBe('text/plain;charset=utf-8');
    expect(Buffer.from(decodeDataUri('data:application/octet-stream;BASE64,SGV s\nbG8#fragment', 100).bytes).toString()).toBe('Hello');
    expect(Buffer.from(decodeDataUri('data:,100%', 100).bytes).toString()).toBe('100%');
    expect(decodeDataUri('data:,', 0).bytes).toHaveLength(0);
  });

  it('refuses malformed URIs and data over the limit', () => {
    expect(() => decodeDataUri('data:text/plain', 100)).toThrow('the data: URI has no comma before its data');
    expect(() => decodeDataUri('data:;base64,abc*', 100)).toThrow('the data: URI is not valid base64');
    expect(() => decodeDataUri('data:;base64,A', 100)).toThrow('the data: URI is not valid base64');
    expect(() => decodeDataUri('data:,123456', 5)).toThrow(new RangeError('the data: URI holds more than 5 bytes'));
    expect(() => decodeDataUri(`data:;base64,${'A'.repeat(100)}`, 10)).toThrow(RangeError);
    expect(() => decodeDataUri('http://x', 5)).toThrow('not a data: URI');
  });
});

describe('shared/download readUrl', () => {
  const signal = new AbortController().signal;

  it('decodes data: itself, sends http(s) to the downloader and refuses every other scheme', async () => {
    const seen: string[] = [];
    const download: Download = async (url) => {
      seen.push(url.href);
      return new Uint8Array([1, 2, 3]);
    };
    expect(await readUrl('data:,hi', { download, signal, maxBytes: 10 })).toEqual(Buffer.from('hi'));
    expect(await readUrl('https://example.com/x', { download, signal, maxBytes: 10 })).toEqual(new Uint8Array([1, 2, 3]));
    expect(await readUrl(new URL('http://example.com/y'), { download, signal, maxBytes: 10 })).toEqual(new Uint8Array([1, 2, 3]));
    expect(seen).toEqual(['https://example.com/x', 'http://example.com/y']);
    for (const url of ['file:///etc/passwd', 'ftp://example.com/a', 'javascript:alert(1)']) {
      await expect(readUrl(url, { download, signal, maxBytes: 10 })).rejects.toThrow(/^unsupported URL scheme /);
    }
    await expect(readUrl('nope', { download, signal, maxBytes: 10 })).rejects.toThrow('not a valid URL');
    await expect(readUrl('https://example.com/z', { download, signal, maxBytes: 2 })).rejects.toThrow(RangeError);
  });

  it('refuses http(s) without a downloader, and does not call one once aborted', async () => {
    await expect(readUrl('https://example.com/', { signal, maxBytes: 10 })).rejects.toThrow(
      "this server does not fetch https:// URLs (no network policy is configured); pass the file's content as a data: URI instead",
    );
    await expect(refuseDownload(new URL('http://10.0.0.1/'), { signal, maxBytes: 1 })).rejects.toThrow('does not fetch http:// URLs');
    const controller = new AbortController();
    controller.abort(new Error('cancelled'));
    let called = false;
    const download: Download = async () => {
      called = true;
      return new Uint8Array();
    };
    await expect(readUrl('https://example.com/', { download, signal: controller.signal, maxBytes: 10 })).rejects.toThrow('cancelled');
    expect(called).toBe(false);
  });
});

describe('shared/zip', () => {
  it('writes archives that read back: stored and deflated entries, UTF-8 names, empty files', () => {
    const entries = [
      { name: 'a.txt', data: Buffer.from('Hello') },
      { name: 'dir/ünïcödé.txt', data: Buffer.from('x'.repeat(10_000)) },
      { name: 'empty', data: new Uint8Array() },
      { name: 'random.bin', data: Uint8Array.from({ length: 256 }, (_, i) => (i * 73) % 256) },
    ];
    const archive = createZip(entries, new Date(2024, 0, 2, 3, 4, 6));
    const files = readZip(archive);
    expect([...files.keys()]).toEqual(entries.map((e) => e.name));
    for (const entry of entries) expect(files.get(entry.name)).toEqual(Buffer.from(entry.data));
    // The 10 000 x's were deflated, "Hello" stored.
    expect(archive.length).toBeLessThan(2000);
    expect(archive.readUInt16LE(8)).toBe(0);
    // DOS time 03:04:06 and date 2024-01-02 in the first local header.
    expect(archive.readUInt16LE(10)).toBe((3 << 11) | (4 << 5) | 3);
    expect(archive.readUInt16LE(12)).toBe(((2024 - 1980) << 9) | (1 << 5) | 2);
    expect(readZip(createZip([]))).toEqual(new Map());
  });

  it('refuses more entries than the format holds', () => {
    const entries = Array.from({ length: ZIP_MAX_ENTRIES + 1 }, (_, i) => ({ name: `f${i}`, data: new Uint8Array() }));
    expect(() => createZip(entries)).toThrow(RangeError);
  });
});
