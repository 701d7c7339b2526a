/**
 * The guarded HTTP client: `createHttpClient` composes the pinned dispatchers (dispatchers.ts, send.ts),
 * the per-hop checks and redirects (redirects.ts), body decoding and limits (decode.ts, body.ts) and one
 * deadline per request (deadline.ts).
 */
import { STATUS_CODES } from 'node:http';
import { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { readBody, streamBody } from './body.js';
import { startDeadline } from './deadline.js';
import { createDispatchers } from './dispatchers.js';
import type { NetworkPolicy, Resolver } from './policy.js';
import { followRedirects } from './redirects.js';
import { send } from './send.js';

export interface HttpClientOptions {
  policy: NetworkPolicy;
  resolve: Resolver;
  /** Every request goes through this HTTP(S) proxy (from configuration only, never from tool input). */
  proxyUrl?: string;
  timeoutMs: number;
  maxBytes: number;
  maxRedirects: number;
  /**
   * The flags that raise the limits, named in the limit errors (`(raise it with --max-bytes)`); a
   * limit without a flag gets no hint.
   */
  limitFlags?: { maxBytes?: string; timeout?: string };
}

export interface GetOptions {
  userAgent: string;
  timeoutMs?: number;
  maxBytes?: number;
  maxRedirects?: number;
  /** Keep the first `maxBytes` instead of failing (robots.txt: RFC 9309 reads at least 500 KiB). */
  truncate?: boolean;
  /** The `Accept` header. Default: HTML first, then XML, text and anything. */
  accept?: string;
  /** Aborts the request; `get` then rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Called as the body arrives: decoded bytes so far, and the declared length when it counts the same bytes. */
  onBody?: (received: number, total: number | undefined) => void;
}

export interface HttpResponse {
  /** The URL that answered, after redirects. */
  url: string;
  status: number;
  headers: Record<string, string>;
  /** Empty for error statuses (≥ 400), whose body nobody reads. */
  body: Buffer;
}

export interface RequestOptions {
  /** Default `GET`. */
  method?: string;
  /** Sent as given (no `Accept`, `Accept-Encoding` or `User-Agent` of the client's own). */
  headers?: Record<string, string>;
  /** A request body; a stream is sent as it is produced (chunked). */
  body?: Uint8Array | AsyncIterable<Uint8Array>;
  /** Deadline of the whole exchange, body included. Default: the client's `timeoutMs`. */
  timeoutMs?: number;
  /** The largest (decoded) response body; reading past it throws `HttpError('too-large')`. Default: the client's. */
  maxBytes?: number;
  /**
   * Redirects followed at most. Only `GET` and `HEAD` requests follow redirects; any other method gets
   * the 3xx response itself (a body cannot be replayed). Default: the client's `maxRedirects`.
   */
  maxRedirects?: number;
  /**
   * Called with the URL and every redirect target before connecting, after the policy's own checks:
   * throw to refuse it (e.g. a caller that only allows https). The error becomes `HttpError('blocked')`.
   */
  checkUrl?: (url: URL) => void;
  /** Aborts the request and the body; `request` and the body's iteration then reject with the signal's reason. */
  signal?: AbortSignal;
}

export interface StreamedResponse {
  /** The URL that answered, after redirects. */
  url: string;
  status: number;
  statusText: string;
  headers: Record<string, string>;
  /**
   * The body, decoded (gzip, deflate, br), as it arrives. Iterating it can throw `HttpError`
   * (`too-large`, `timeout`, `connect`). Read it to the end or call `cancel()`: until then the deadline runs.
   */
  body: AsyncIterableIterator<Uint8Array>;
  /** Drops the rest of the body and releases the connection. */
  cancel(): Promise<void>;
}

export interface HttpClient {
  get(url: string, options: GetOptions): Promise<HttpResponse>;
  /**
   * Any method, a request body, a streamed response, under the same policy as `get` (every redirect
   * hop checked, DNS pinned, one deadline, a size cap). On a redirect to another origin the
   * `Authorization`, `Proxy-Authorization` and `Cookie` headers are dropped. Error statuses are
   * returned, not thrown.
   */
  request(url: string, options?: RequestOptions): Promise<StreamedResponse>;
  close(): Promise<void>;
}

const ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,text/plain;q=0.8,*/*;q=0.7';

/**
 * GET with the SSRF policy applied to the first request and to every redirect hop, one overall
 * deadline, a cap on decoded bytes and a redirect limit. undici is loaded on first use.
 *
 * Host names are resolved once, in the connection's `lookup`, which refuses disallowed addresses
 * and connects to the very address it checked. Through a proxy the proxy connects and resolves, so
 * only what the URL itself shows is checked here (`checkUrl`, `checkProxiedName`).
 */
export function createHttpClient(options: HttpClientOptions): HttpClient {
  const { policy, proxyUrl, limitFlags } = options;
  const dispatchers = createDispatchers(options);

  async function get(url: string, opts: GetOptions): Promise<HttpResponse> {
    const deadline = startDeadline({ timeoutMs: opts.timeoutMs ?? options.timeoutMs, signal: opts.signal, flag: limitFlags?.timeout });
    try {
      const { target, response, headers } = await followRedirects(url, {
        policy,
        proxyUrl,
        maxRedirects: opts.maxRedirects ?? options.maxRedirects,
        headers: { 'user-agent': opts.userAgent, accept: opts.accept ?? ACCEPT, 'accept-encoding': 'gzip, deflate, br' },
        send: (hop, _index, headers) => send(dispatchers, hop, deadline, { method: 'GET', headers }),
      });
      if (response.statusCode >= 400) {
        // Nobody reads an error page's body (the reference only reports the status): skip it.
        await response.body.dump().catch(() => {});
        return { url: target.href, status: response.statusCode, headers, body: Buffer.alloc(0) };
      }
      const read = readBody(response.body, headers, {
        maxBytes: opts.maxBytes ?? options.maxBytes,
        flag: limitFlags?.maxBytes,
        truncate: opts.truncate,
        onBody: opts.onBody,
      });
      const body = await Promise.race([read, deadline.expired]);
      return { url: target.href, status: response.statusCode, headers, body };
    } catch (error) {
      throw deadline.failure(error);
    } finally {
      deadline.finish();
    }
  }

  async function request(url: string, opts: RequestOptions = {}): Promise<StreamedResponse> {
    const method = (opts.method ?? 'GET').toUpperCase() as Dispatcher.HttpMethod;
    const follows = method === 'GET' || method === 'HEAD';
    const deadline = startDeadline({ timeoutMs: opts.timeoutMs ?? options.timeoutMs, signal: opts.signal, flag: limitFlags?.timeout });
    try {
      const { target, response, headers } = await followRedirects(url, {
        policy,
        proxyUrl,
        checkUrl: opts.checkUrl,
        maxRedirects: follows ? (opts.maxRedirects ?? options.maxRedirects) : 0,
        answerRedirects: true,
        headers: { ...(opts.headers ?? {}) },
        send: (hop, index, headers) =>
          send(dispatchers, hop, deadline, {
            method,
            headers,
            ...(index === 0 && opts.body !== undefined
              ? { body: opts.body instanceof Uint8Array ? opts.body : Readable.from(opts.body, { objectMode: false }) }
              : {}),
          }),
      });
      const { body, cancel } = streamBody(response.body, headers['content-encoding'] ?? '', {
        maxBytes: opts.maxBytes ?? options.maxBytes,
        flag: limitFlags?.maxBytes,
        failure: deadline.failure,
        onEnd: deadline.finish,
      });
      return {
        url: target.href,
        status: response.statusCode,
        statusText: response.statusText ?? STATUS_CODES[response.statusCode] ?? '',
        headers,
        body,
        cancel,
      };
    } catch (error) {
      deadline.finish();
      throw deadline.failure(error);
    }
  }

  return { get, request, close: () => dispatchers.close() };
}
