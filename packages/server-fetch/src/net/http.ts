import { pipeline, type Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { Dispatcher } from 'undici';
import {
  BlockedDestinationError,
  checkAddress,
  checkUrl,
  guardedLookup,
  type NetworkPolicy,
  parseIp,
  type Resolver,
  type Strictness,
  strictnessFor,
  urlHost,
  urlPort,
} from './policy.js';

export type HttpErrorKind = 'blocked' | 'scheme' | 'timeout' | 'too-large' | 'redirects' | 'connect';

/** A failed GET; `message` is the part after `Failed to fetch <url>: `. */
export class HttpError extends Error {
  override readonly name = 'HttpError';
  constructor(
    readonly kind: HttpErrorKind,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

export interface HttpClientOptions {
  policy: NetworkPolicy;
  resolve: Resolver;
  /** Every request goes through this HTTP(S) proxy (from configuration only, never from tool input). */
  proxyUrl?: string;
  timeoutMs: number;
  maxBytes: number;
  maxRedirects: number;
}

export interface GetOptions {
  userAgent: string;
  timeoutMs?: number;
  maxBytes?: number;
  maxRedirects?: number;
  /** Keep the first `maxBytes` instead of failing (robots.txt: RFC 9309 reads at least 500 KiB). */
  truncate?: boolean;
}

export interface HttpResponse {
  /** The URL that answered, after redirects. */
  url: string;
  status: number;
  headers: Record<string, string>;
  /** Empty for error statuses (≥ 400), whose body nobody reads. */
  body: Buffer;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,text/plain;q=0.8,*/*;q=0.7';

function formatDuration(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} bytes`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1).replace(/\.0$/, '')} KiB`;
  return `${(n / 1024 / 1024).toFixed(1).replace(/\.0$/, '')} MiB`;
}

/** Python-repr-like rendering of a transport error, as the reference's `{e!r}` (`ConnectError('…')`). */
function repr(kind: string, message: string): string {
  return `${kind}('${message.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}')`;
}

function findCause<T>(error: unknown, test: (e: unknown) => e is T): T | undefined {
  let current: unknown = error;
  for (let depth = 0; current && depth < 8; depth++) {
    if (test(current)) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

function transportError(error: unknown): HttpError {
  const inner = findCause(
    error,
    (e): e is NodeJS.ErrnoException => e instanceof Error && typeof (e as NodeJS.ErrnoException).code === 'string',
  );
  const code = inner?.code ?? '';
  const message = inner?.message ?? (error instanceof Error ? error.message : String(error));
  let kind = 'ConnectError';
  if (code === 'UND_ERR_CONNECT_TIMEOUT') kind = 'ConnectTimeout';
  else if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') kind = 'ReadTimeout';
  else if (code === 'UND_ERR_SOCKET' || code.startsWith('HPE_') || code === 'ECONNRESET') kind = 'RemoteProtocolError';
  else if (code.startsWith('Z_') || code === 'ERR_PADDING_1' || code.startsWith('ERR__')) kind = 'DecodingError';
  return new HttpError('connect', repr(kind, message), { cause: error });
}

function flatHeaders(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value !== undefined) out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

function decoder(encoding: string) {
  switch (encoding.trim().toLowerCase()) {
    case 'gzip':
    case 'x-gzip':
      return createGunzip();
    case 'deflate':
      return createInflate();
    case 'br':
      return createBrotliDecompress();
    default:
      return undefined;
  }
}

export interface HttpClient {
  get(url: string, options: GetOptions): Promise<HttpResponse>;
  close(): Promise<void>;
}

/**
 * GET with the SSRF policy applied to the first request and to every redirect hop, one overall
 * deadline, a cap on decoded bytes and a redirect limit. undici is loaded on first use.
 *
 * Host names are resolved once, in the connection's `lookup`, which refuses disallowed addresses
 * and connects to the very address it checked. Through a proxy the proxy connects, so the name is
 * resolved and checked here first (the proxy then resolves it again on its side).
 */
export function createHttpClient(options: HttpClientOptions): HttpClient {
  let undici: Promise<typeof import('undici')> | undefined;
  const loadUndici = () => (undici ??= import('undici'));
  const dispatchers = new Map<Strictness | 'proxy', Dispatcher>();

  async function dispatcherFor(strictness: Strictness): Promise<Dispatcher> {
    const { Agent, ProxyAgent } = await loadUndici();
    const key = options.proxyUrl ? 'proxy' : strictness;
    let dispatcher = dispatchers.get(key);
    if (!dispatcher) {
      const common = { keepAliveTimeout: 4_000, headersTimeout: options.timeoutMs, bodyTimeout: options.timeoutMs };
      dispatcher = options.proxyUrl
        ? new ProxyAgent({ uri: options.proxyUrl, ...common })
        : new Agent({
            ...common,
            connect: { lookup: guardedLookup(strictness, options.resolve), timeout: Math.min(options.timeoutMs, 10_000) },
          });
      dispatchers.set(key, dispatcher);
    }
    return dispatcher;
  }

  /** Through a proxy the lookup guard never runs: resolve and check the name here. */
  async function precheckForProxy(url: URL, strictness: Strictness): Promise<void> {
    if (!options.proxyUrl || strictness === 'open' || parseIp(url.hostname)) return;
    const addresses = await options.resolve(url.hostname);
    for (const a of addresses) {
      const ip = parseIp(a.address);
      if (ip) checkAddress(strictness, urlHost(url), urlPort(url), ip);
    }
  }

  async function readBody(body: Readable, headers: Record<string, string>, maxBytes: number, truncate: boolean): Promise<Buffer> {
    // Destroying an unfinished undici body makes it emit "Request aborted"; nobody needs to hear it.
    body.on('error', () => {});
    const declared = Number(headers['content-length']);
    if (!truncate && !headers['content-encoding'] && Number.isFinite(declared) && declared > maxBytes) {
      body.destroy();
      throw new HttpError(
        'too-large',
        `the response is ${formatBytes(declared)}, over the ${formatBytes(maxBytes)} limit (raise it with --max-bytes)`,
      );
    }
    const decode = decoder(headers['content-encoding'] ?? '');
    const stream: Readable = decode ? pipeline(body, decode, () => {}) : body;
    const chunks: Buffer[] = [];
    let total = 0;
    try {
      for await (const chunk of stream as AsyncIterable<Buffer>) {
        total += chunk.length;
        if (total > maxBytes) {
          if (!truncate)
            throw new HttpError('too-large', `the response is over the ${formatBytes(maxBytes)} limit (raise it with --max-bytes)`);
          chunks.push(chunk.subarray(0, chunk.length - (total - maxBytes)));
          break;
        }
        chunks.push(chunk);
      }
    } finally {
      stream.destroy();
      body.destroy();
    }
    return Buffer.concat(chunks);
  }

  async function get(url: string, get: GetOptions): Promise<HttpResponse> {
    const timeoutMs = get.timeoutMs ?? options.timeoutMs;
    const maxBytes = get.maxBytes ?? options.maxBytes;
    const maxRedirects = get.maxRedirects ?? options.maxRedirects;
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    let current = url;
    try {
      for (let hop = 0; ; hop++) {
        const target = new URL(current);
        const context = current === url ? '' : `redirected to ${current}; `;
        if (target.protocol !== 'http:' && target.protocol !== 'https:') {
          throw new HttpError('scheme', `${context}only http and https URLs can be fetched, not ${target.protocol.slice(0, -1)}`);
        }
        const strictness = strictnessFor(options.policy, target);
        try {
          checkUrl(options.policy, target);
          await precheckForProxy(target, strictness);
        } catch (error) {
          if (error instanceof BlockedDestinationError) throw new HttpError('blocked', context + error.message, { cause: error });
          throw error;
        }
        const { request } = await loadUndici();
        let response: Dispatcher.ResponseData;
        try {
          response = await request(target, {
            method: 'GET',
            dispatcher: await dispatcherFor(strictness),
            signal: controller.signal,
            headers: { 'user-agent': get.userAgent, accept: ACCEPT, 'accept-encoding': 'gzip, deflate, br' },
            headersTimeout: timeoutMs,
            bodyTimeout: timeoutMs,
          });
        } catch (error) {
          const blocked = findCause(error, (e): e is BlockedDestinationError => e instanceof BlockedDestinationError);
          if (blocked) throw new HttpError('blocked', context + blocked.message, { cause: error });
          throw error;
        }
        const headers = flatHeaders(response.headers);
        if (REDIRECTS.has(response.statusCode) && headers.location) {
          await response.body.dump().catch(() => {});
          if (hop >= maxRedirects) throw new HttpError('redirects', repr('TooManyRedirects', 'Exceeded maximum allowed redirects.'));
          try {
            current = new URL(headers.location, target).href;
          } catch {
            throw new HttpError('connect', repr('RemoteProtocolError', `Invalid redirect location: ${headers.location}`));
          }
          continue;
        }
        if (response.statusCode >= 400) {
          // Nobody reads an error page's body (the reference only reports the status): skip it.
          await response.body.dump().catch(() => {});
          return { url: target.href, status: response.statusCode, headers, body: Buffer.alloc(0) };
        }
        const body = await readBody(response.body, headers, maxBytes, get.truncate ?? false);
        return { url: target.href, status: response.statusCode, headers, body };
      }
    } catch (error) {
      if (timedOut)
        throw new HttpError('timeout', `no complete response within ${formatDuration(timeoutMs)} (raise the limit with --timeout)`, {
          cause: error,
        });
      if (error instanceof HttpError) throw error;
      throw transportError(error);
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    get,
    async close() {
      const all = [...dispatchers.values()];
      dispatchers.clear();
      await Promise.allSettled(all.map((d) => d.close()));
    },
  };
}
