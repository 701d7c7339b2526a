import { STATUS_CODES } from 'node:http';
import { pipeline, Readable, type Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { Dispatcher } from 'undici';
import { formatBytes, formatDuration } from './format.js';
import {
  BlockedDestinationError,
  checkProxiedName,
  checkUrl,
  guardedLookup,
  type NetworkPolicy,
  type Resolver,
  type Strictness,
  strictnessFor,
} from './policy.js';

export type HttpErrorKind = 'blocked' | 'scheme' | 'timeout' | 'too-large' | 'redirects' | 'connect' | 'encoding';

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

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** Content codings applied on top of each other that are decoded at most (`gzip, gzip` is two). */
const MAX_CODINGS = 3;
const ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,text/plain;q=0.8,*/*;q=0.7';

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

const DECODERS = new Map<string, () => Transform>([
  ['gzip', createGunzip],
  ['x-gzip', createGunzip],
  ['deflate', createInflate],
  ['br', createBrotliDecompress],
]);

/** The decoders for a `Content-Encoding` list, outermost (last applied) first; throws for a coding Node cannot decode. */
function decoders(header: string): Transform[] {
  const codings = header
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c && c !== 'identity');
  if (codings.length > MAX_CODINGS) {
    throw new HttpError(
      'encoding',
      `the response is compressed ${codings.length} times over (Content-Encoding: ${header}); at most ${MAX_CODINGS} layers are decoded`,
    );
  }
  const unknown = codings.find((c) => !DECODERS.has(c));
  if (unknown) {
    throw new HttpError(
      'encoding',
      `the response is compressed with "${unknown}" (Content-Encoding: ${header}), which cannot be decoded; only gzip, deflate and br can`,
    );
  }
  return codings.reverse().map((c) => (DECODERS.get(c) as () => Transform)());
}

/** ` (raise it with --flag)`, or nothing without a flag. */
function raiseHint(flag: string | undefined, what: string): string {
  return flag ? ` (raise ${what} with ${flag})` : '';
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

/** One deadline for a request: aborts `controller` and rejects `expired` at `timeoutMs` or when `signal` aborts. */
interface Deadline {
  controller: AbortController;
  /**
   * Rejects at the deadline or on abort. undici honours an abort only once it has a connection: a proxy
   * that accepts the connection and never answers the tunnel request would hold a request forever, so
   * every phase races this.
   */
  expired: Promise<never>;
  timedOut(): boolean;
  /** Stops the timer and the abort listener (idempotent). */
  finish(): void;
}

/** Starts a deadline; throws `signal.reason` at once when `signal` is already aborted. */
function startDeadline(timeoutMs: number, signal: AbortSignal | undefined): Deadline {
  const controller = new AbortController();
  let timedOut = false;
  let done = false;
  let expire: (error: Error) => void = () => {};
  const expired = new Promise<never>((_resolve, reject) => {
    expire = reject;
  });
  expired.catch(() => {});
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
    expire(new Error('deadline'));
  }, timeoutMs);
  const onAbort = () => {
    controller.abort();
    expire(new Error('aborted'));
  };
  const finish = () => {
    if (done) return;
    done = true;
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  };
  if (signal) {
    if (signal.aborted) {
      finish();
      throw signal.reason;
    }
    signal.addEventListener('abort', onAbort, { once: true });
  }
  return { controller, expired, timedOut: () => timedOut, finish };
}

/** The connection was closed or reset under a request that had no answer yet (undici's codes, or the socket's). */
function isConnectionReset(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'ECONNRESET' || code === 'EPIPE' || code === 'UND_ERR_SOCKET';
}

/**
 * GET with the SSRF policy applied to the first request and to every redirect hop, one overall
 * deadline, a cap on decoded bytes and a redirect limit. undici is loaded on first use.
 *
 * Host names are resolved once, in the connection's `lookup`, which refuses disallowed addresses
 * and connects to the very address it checked. Through a proxy the proxy connects and resolves, so
 * only what the URL itself shows is checked here (`checkUrl`, `checkProxiedName`).
 */
export function createHttpClient(options: HttpClientOptions): HttpClient {
  let undici: Promise<typeof import('undici')> | undefined;
  const loadUndici = () => (undici ??= import('undici'));
  const dispatchers = new Map<Strictness | 'proxy', Dispatcher>();

  async function dispatcherFor(strictness: Strictness): Promise<Dispatcher> {
    const key = options.proxyUrl ? 'proxy' : strictness;
    let dispatcher = dispatchers.get(key);
    if (!dispatcher) {
      dispatcher = await newDispatcher(strictness);
      dispatchers.set(key, dispatcher);
    }
    return dispatcher;
  }

  async function newDispatcher(strictness: Strictness): Promise<Dispatcher> {
    const { Agent, Pool, ProxyAgent } = await loadUndici();
    const common = { keepAliveTimeout: 4_000, headersTimeout: options.timeoutMs, bodyTimeout: options.timeoutMs };
    return options.proxyUrl
      ? new ProxyAgent({
          uri: options.proxyUrl,
          ...common,
          // The tunnel (CONNECT) request to the proxy gets the same bounds as a request (undici's
          // defaults: 10 s to connect, 300 s for the proxy's answer).
          proxyTls: { timeout: Math.min(options.timeoutMs, 10_000) },
          clientFactory: (origin, opts) => new Pool(origin, { ...opts, headersTimeout: options.timeoutMs }),
        })
      : new Agent({
          ...common,
          connect: {
            lookup: guardedLookup(strictness, options.resolve, options.policy.name),
            timeout: Math.min(options.timeoutMs, 10_000),
          },
        });
  }

  async function readBody(body: Readable, headers: Record<string, string>, get: GetOptions, maxBytes: number): Promise<Buffer> {
    // Destroying an unfinished undici body makes it emit "Request aborted"; nobody needs to hear it.
    body.on('error', () => {});
    const truncate = get.truncate ?? false;
    const encoding = headers['content-encoding'] ?? '';
    const declared = Number(headers['content-length']);
    if (!truncate && !encoding && Number.isFinite(declared) && declared > maxBytes) {
      body.destroy();
      throw new HttpError(
        'too-large',
        `the response is ${formatBytes(declared)}, over the ${formatBytes(maxBytes)} limit${raiseHint(options.limitFlags?.maxBytes, 'it')}`,
      );
    }
    let decode: Transform[];
    try {
      decode = decoders(encoding);
    } catch (error) {
      body.destroy();
      throw error;
    }
    // The declared length counts encoded bytes; progress counts decoded ones, so it has a total only when they agree.
    const total = !encoding && Number.isFinite(declared) ? declared : undefined;
    const stream: Readable = decode.length > 0 ? (pipeline([body, ...decode], () => {}) as unknown as Readable) : body;
    const chunks: Buffer[] = [];
    let received = 0;
    try {
      for await (const chunk of stream as AsyncIterable<Buffer>) {
        received += chunk.length;
        if (received > maxBytes) {
          if (!truncate)
            throw new HttpError(
              'too-large',
              `the response is over the ${formatBytes(maxBytes)} limit${raiseHint(options.limitFlags?.maxBytes, 'it')}`,
            );
          chunks.push(chunk.subarray(0, chunk.length - (received - maxBytes)));
          break;
        }
        chunks.push(chunk);
        get.onBody?.(received, total);
      }
    } finally {
      stream.destroy();
      for (const d of decode) d.destroy();
      body.destroy();
    }
    return Buffer.concat(chunks);
  }

  /**
   * Every hop (the URL, then each redirect target) before it is sent: http(s) only, the network policy
   * (and, through a proxy, the name the proxy will resolve), then the caller's own `hook`. A refusal is an
   * HttpError naming the hop; returns how strictly the connection's address must be checked.
   */
  function checkHop(target: URL, context: string, hook?: (url: URL) => void): Strictness {
    if (target.protocol !== 'http:' && target.protocol !== 'https:') {
      throw new HttpError('scheme', `${context}only http and https URLs can be fetched, not ${target.protocol.slice(0, -1)}`);
    }
    try {
      checkUrl(options.policy, target);
      if (options.proxyUrl) checkProxiedName(options.policy, target);
      hook?.(target);
    } catch (error) {
      if (error instanceof HttpError) throw error;
      throw new HttpError('blocked', context + (error instanceof Error ? error.message : String(error)), { cause: error });
    }
    return strictnessFor(options.policy, target);
  }

  /**
   * One request through the dispatcher pinned for `strictness`, raced against `deadline` (a response that
   * comes after it is dropped); a refusal by the pinned lookup becomes HttpError('blocked').
   */
  async function send(
    target: URL,
    strictness: Strictness,
    deadline: Deadline,
    timeoutMs: number,
    signal: AbortSignal | undefined,
    context: string,
    init: { method: Dispatcher.HttpMethod; headers: Record<string, string>; body?: Uint8Array | Readable },
  ): Promise<Dispatcher.ResponseData> {
    const { request } = await loadUndici();
    // A GET or HEAD without a body whose connection is reset before any response is sent once more, on a
    // connection of its own: a kept-alive socket the server closed just as it was reused (its idle timeout
    // racing ours, common on a loaded machine) says nothing about the server, and the pool's other idle
    // sockets may be just as stale. Only once, and never after the deadline or the caller's abort.
    const replayable = (init.method === 'GET' || init.method === 'HEAD') && init.body === undefined;
    for (let attempt = 0; ; attempt++) {
      const fresh = attempt > 0 ? await newDispatcher(strictness) : undefined;
      try {
        const pending = request(target, {
          ...init,
          dispatcher: fresh ?? (await dispatcherFor(strictness)),
          signal: deadline.controller.signal,
          headersTimeout: timeoutMs,
          bodyTimeout: timeoutMs,
        });
        pending.then((late) => (deadline.timedOut() || signal?.aborted) && late.body.destroy()).catch(() => {});
        // A one-off dispatcher closes once its request is over (body included): close() waits for it.
        if (fresh) pending.finally(() => fresh.close().catch(() => {})).catch(() => {});
        return await Promise.race([pending, deadline.expired]);
      } catch (error) {
        const blocked = findCause(error, (e): e is BlockedDestinationError => e instanceof BlockedDestinationError);
        if (blocked) throw new HttpError('blocked', context + blocked.message, { cause: error });
        if (attempt === 0 && replayable && !deadline.timedOut() && !signal?.aborted && isConnectionReset(error)) continue;
        throw error;
      }
    }
  }

  async function get(url: string, get: GetOptions): Promise<HttpResponse> {
    const timeoutMs = get.timeoutMs ?? options.timeoutMs;
    const maxBytes = get.maxBytes ?? options.maxBytes;
    const maxRedirects = get.maxRedirects ?? options.maxRedirects;
    const deadline = startDeadline(timeoutMs, get.signal);
    const { expired } = deadline;
    const { signal } = get;
    let current = url;
    try {
      for (let hop = 0; ; hop++) {
        const target = new URL(current);
        const context = current === url ? '' : `redirected to ${current}; `;
        const strictness = checkHop(target, context);
        const response = await send(target, strictness, deadline, timeoutMs, signal, context, {
          method: 'GET',
          headers: { 'user-agent': get.userAgent, accept: get.accept ?? ACCEPT, 'accept-encoding': 'gzip, deflate, br' },
        });
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
        const body = await Promise.race([readBody(response.body, headers, get, maxBytes), expired]);
        return { url: target.href, status: response.statusCode, headers, body };
      }
    } catch (error) {
      if (signal?.aborted && !deadline.timedOut()) throw signal.reason;
      if (deadline.timedOut())
        throw new HttpError(
          'timeout',
          `no complete response within ${formatDuration(timeoutMs)}${raiseHint(options.limitFlags?.timeout, 'the limit')}`,
          {
            cause: error,
          },
        );
      if (error instanceof HttpError) throw error;
      throw transportError(error);
    } finally {
      deadline.finish();
    }
  }

  async function request(url: string, opts: RequestOptions = {}): Promise<StreamedResponse> {
    const method = (opts.method ?? 'GET').toUpperCase();
    const timeoutMs = opts.timeoutMs ?? options.timeoutMs;
    const maxBytes = opts.maxBytes ?? options.maxBytes;
    const maxRedirects = method === 'GET' || method === 'HEAD' ? (opts.maxRedirects ?? options.maxRedirects) : 0;
    const deadline = startDeadline(timeoutMs, opts.signal);
    const { finish } = deadline;
    const { signal } = opts;
    const failure = (error: unknown): unknown => {
      if (signal?.aborted && !deadline.timedOut()) return signal.reason;
      if (deadline.timedOut())
        return new HttpError(
          'timeout',
          `no complete response within ${formatDuration(timeoutMs)}${raiseHint(options.limitFlags?.timeout, 'the limit')}`,
          { cause: error },
        );
      if (error instanceof HttpError) return error;
      return transportError(error);
    };
    let current = url;
    let headers: Record<string, string> = { ...(opts.headers ?? {}) };
    try {
      for (let hop = 0; ; hop++) {
        const target = new URL(current);
        const context = current === url ? '' : `redirected to ${current}; `;
        const strictness = checkHop(target, context, opts.checkUrl);
        const response = await send(target, strictness, deadline, timeoutMs, signal, context, {
          method: method as Dispatcher.HttpMethod,
          headers,
          ...(hop === 0 && opts.body !== undefined
            ? { body: opts.body instanceof Uint8Array ? opts.body : Readable.from(opts.body, { objectMode: false }) }
            : {}),
        });
        const responseHeaders = flatHeaders(response.headers);
        if (REDIRECTS.has(response.statusCode) && responseHeaders.location && hop < maxRedirects) {
          await response.body.dump().catch(() => {});
          let next: URL;
          try {
            next = new URL(responseHeaders.location, target);
          } catch {
            throw new HttpError('connect', repr('RemoteProtocolError', `Invalid redirect location: ${responseHeaders.location}`));
          }
          if (next.origin !== target.origin) {
            const dropped = new Set(['authorization', 'proxy-authorization', 'cookie']);
            headers = Object.fromEntries(Object.entries(headers).filter(([name]) => !dropped.has(name.toLowerCase())));
          }
          current = next.href;
          continue;
        }
        if (REDIRECTS.has(response.statusCode) && responseHeaders.location && maxRedirects > 0) {
          await response.body.dump().catch(() => {});
          throw new HttpError('redirects', repr('TooManyRedirects', 'Exceeded maximum allowed redirects.'));
        }
        const raw = response.body;
        raw.on('error', () => {});
        let decode: Transform[];
        try {
          decode = decoders(responseHeaders['content-encoding'] ?? '');
        } catch (error) {
          raw.destroy();
          throw error;
        }
        const stream: Readable = decode.length > 0 ? (pipeline([raw, ...decode], () => {}) as unknown as Readable) : raw;
        const release = () => {
          stream.destroy();
          for (const d of decode) d.destroy();
          raw.destroy();
          finish();
        };
        async function* iterate(): AsyncGenerator<Uint8Array> {
          let received = 0;
          try {
            for await (const chunk of stream as AsyncIterable<Buffer>) {
              received += chunk.length;
              if (received > maxBytes)
                throw new HttpError(
                  'too-large',
                  `the response is over the ${formatBytes(maxBytes)} limit${raiseHint(options.limitFlags?.maxBytes, 'it')}`,
                );
              yield new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
            }
          } catch (error) {
            throw failure(error);
          } finally {
            release();
          }
        }
        const inner = iterate();
        const body: AsyncIterableIterator<Uint8Array> = {
          next: () => inner.next(),
          async return(value?: unknown) {
            release();
            return inner.return(value as undefined);
          },
          [Symbol.asyncIterator]() {
            return this;
          },
        };
        return {
          url: target.href,
          status: response.statusCode,
          statusText: response.statusText ?? STATUS_CODES[response.statusCode] ?? '',
          headers: responseHeaders,
          body,
          async cancel() {
            release();
            await inner.return(undefined);
          },
        };
      }
    } catch (error) {
      finish();
      throw failure(error);
    }
  }

  return {
    get,
    request,
    async close() {
      const all = [...dispatchers.values()];
      dispatchers.clear();
      await Promise.allSettled(all.map((d) => d.close()));
    },
  };
}
