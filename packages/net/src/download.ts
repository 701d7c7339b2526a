import { HttpError } from './errors.js';
import { createHttpClient } from './http.js';
import { type AllowedHost, type NetworkPolicy, parseAllowHost, type Resolver } from './policy.js';
import { systemResolver } from './resolve.js';

export interface DownloaderOptions {
  /** Allow loopback, private, link-local, CGNAT … destinations (not cloud metadata endpoints). Default false. */
  allowPrivateNetwork?: boolean;
  /** `HOST` or `HOST:PORT` entries (or parsed ones) that may be reached whatever they resolve to. */
  allowHosts?: ReadonlyArray<string | AllowedHost>;
  /** Who refuses, in refusal messages (`mcp-server-everything blocks private, …`). Default `this server`. */
  name?: string;
  /** Send every request through this HTTP(S) proxy (configuration only, never from tool input). */
  proxyUrl?: string;
  /** Sent with every request. Default `mcpkit (+https://github.com/mcpkit)`. */
  userAgent?: string;
  /** Deadline of one download when the caller's signal does not end it sooner. Default 5 minutes. */
  timeoutMs?: number;
  /** Redirects followed at most (every hop is checked against the policy). Default 20. */
  maxRedirects?: number;
  /** Host name resolution; the system resolver by default (tests map names to 127.0.0.1). */
  resolve?: Resolver;
  /** Flags named in limit errors, as `HttpClientOptions.limitFlags`. Default none. */
  limitFlags?: { maxBytes?: string; timeout?: string };
}

export interface DownloadOptions {
  /** Aborts the download; the promise then rejects with the signal's reason. */
  signal: AbortSignal;
  /** The largest body accepted (after decoding); a larger one fails as soon as it is seen. */
  maxBytes: number;
}

export interface Downloader {
  /**
   * GETs an http(s) URL through the policy and resolves to the body. Fails with an `Error` whose
   * message says what went wrong (refused destination, limit, HTTP status, connection); rejects with
   * `signal.reason` once the signal aborts.
   */
  download(url: URL | string, options: DownloadOptions): Promise<Uint8Array>;
  /** Closes the connection pools (the agents). */
  close(): Promise<void>;
}

/** Parses `HOST[:PORT]` strings, keeps parsed entries. */
export function networkPolicy(options: Pick<DownloaderOptions, 'allowPrivateNetwork' | 'allowHosts' | 'name'>): NetworkPolicy {
  return {
    allowPrivateNetwork: options.allowPrivateNetwork ?? false,
    allowHosts: (options.allowHosts ?? []).map((h) => (typeof h === 'string' ? parseAllowHost(h) : h)),
    ...(options.name !== undefined ? { name: options.name } : {}),
  };
}

/**
 * A whole-body downloader on the guarded client: one per process (it holds the connection pools).
 * undici is loaded on the first download, not before.
 */
export function createDownloader(options: DownloaderOptions = {}): Downloader {
  const timeoutMs = options.timeoutMs ?? 5 * 60_000;
  const http = createHttpClient({
    policy: networkPolicy(options),
    resolve: options.resolve ?? systemResolver,
    ...(options.proxyUrl ? { proxyUrl: options.proxyUrl } : {}),
    timeoutMs,
    maxBytes: Number.MAX_SAFE_INTEGER,
    maxRedirects: options.maxRedirects ?? 20,
    ...(options.limitFlags ? { limitFlags: options.limitFlags } : {}),
  });
  const userAgent = options.userAgent ?? 'mcpkit (+https://github.com/mcpkit)';
  return {
    async download(url, { signal, maxBytes }) {
      const href = typeof url === 'string' ? url : url.href;
      signal.throwIfAborted();
      let response: Awaited<ReturnType<typeof http.get>>;
      try {
        response = await http.get(href, { userAgent, accept: '*/*', signal, maxBytes });
      } catch (error) {
        if (signal.aborted) throw signal.reason;
        if (error instanceof HttpError) throw new Error(error.message, { cause: error });
        throw error;
      }
      if (response.status >= 400) throw new Error(`the server answered HTTP ${response.status}`);
      const { body } = response;
      return new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
    },
    close: () => http.close(),
  };
}
