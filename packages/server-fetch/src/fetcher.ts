import { type AllowedHost, createHttpClient, HttpError, parseAllowHost, type Resolver, systemResolver } from '@mcpkit/net';
import { type Logger, silentLogger, ToolError } from '@mcpkit/protocol-core';
import {
  cancelled,
  DEFAULT_MAX_BYTES,
  DEFAULT_MAX_REDIRECTS,
  DEFAULT_TIMEOUT_MS,
  DEFAULT_USER_AGENT_AUTONOMOUS,
  DEFAULT_USER_AGENT_MANUAL,
  statusError,
} from './constants.js';
import { type ConversionLane, createConverter } from './content/conversionPool.js';
import { type Converted, mimeOf, UnconvertibleError } from './content/convert.js';
import { formatBytes } from './format.js';
import { type ContentCacheOptions, createPageCache, downloadId } from './pageCache.js';
import { noProgress, type Progress } from './progress.js';
import { createRobotsChecker } from './robots.js';
import { normalizeUrl } from './url.js';

export type { ContentCacheOptions } from './pageCache.js';

export interface FetcherOptions {
  /** Replaces both default user agents (autonomous and user-specified), as `--user-agent` does. */
  userAgent?: string;
  /** Skip robots.txt for tool calls. */
  ignoreRobotsTxt?: boolean;
  /** Send every request through this proxy. Configuration only; never taken from tool input. */
  proxyUrl?: string;
  /** Allow loopback, private, link-local, CGNAT … destinations (not cloud metadata endpoints). */
  allowPrivateNetwork?: boolean;
  /** `HOST` or `HOST:PORT` entries (or parsed ones) that may be reached whatever they resolve to. */
  allowHosts?: ReadonlyArray<string | AllowedHost>;
  /** Deadline for one fetch: redirects, body and conversion included. Default 30 s. */
  timeoutMs?: number;
  /** Deadline for a robots.txt fetch. Default 5 s (at most `timeoutMs`). */
  robotsTimeoutMs?: number;
  /** Largest body accepted, after decompression. Default 10 MiB. */
  maxBytes?: number;
  /** Redirects followed at most. Default 20 (httpx's default, which the reference uses). */
  maxRedirects?: number;
  cache?: ContentCacheOptions;
  /**
   * Host name resolution; defaults to the system resolver. Tests map names to 127.0.0.1 with it. Not
   * used through a proxy (the proxy resolves names).
   */
  resolve?: Resolver;
  /**
   * The worker module conversions run in (each stopped at the fetch's deadline). Default: the built
   * `convertWorker.js` next to this module; from TypeScript source there is none and conversions run
   * in-process, unbounded. `false`: in-process.
   */
  conversionWorker?: URL | false;
  /**
   * Conversion worker threads at most. Default 2 to 4, by CPU count. While several sessions share the
   * fetcher, one session runs at most half of them (rounded up) at once and has at most 8 waiting.
   */
  maxConversionWorkers?: number;
  logger?: Logger;
}

export interface FetchedPage extends Converted {
  /** The URL asked for. */
  url: string;
  /** The URL that answered, after redirects. */
  finalUrl: string;
  status: number;
  contentType: string;
}

interface FetchPageOptions {
  userAgent: string;
  raw?: boolean;
  progress?: Progress;
  signal?: AbortSignal;
}

interface AutonomousFetchOptions {
  /** The page unconverted (`raw: true` of the tool); cached apart from its conversion. */
  raw?: boolean;
  /** Where the caller reads from. Above 0 (a continuation), the caller's cached download is reused. Default 0. */
  startIndex?: number;
  /**
   * Whose download this is (`downloadOwner`): a continuation reads the download of the same owner, and one owner's
   * download never replaces another's. Default: one owner for the whole fetcher.
   */
  owner?: string;
  /**
   * For a continuation: the `downloadId` of the earlier part, so that it reads that download (while cached) rather
   * than the owner's last one, and a new download is compared with it. Default: the owner's last download.
   */
  downloadId?: string;
  progress?: Progress;
  signal?: AbortSignal;
}

/**
 * A page for the fetch tool. `redownload` is set on a continuation that found no cached download of its owner and
 * downloaded the page again while an earlier download is known (the one it names, or the owner's last one, known
 * for an hour): `unchanged` when the new download has the same text, `changed` when not. When nothing is known of an
 * earlier download (a first call at a `start_index`, or a continuation on another replica that names none), it is
 * not set: there is nothing to compare with.
 */
export interface AutonomousPage extends FetchedPage {
  /** Names this download (`downloadId` of `pageCache.ts`): a continuation passes it to read the same one. */
  downloadId: string;
  redownload?: 'unchanged' | 'changed';
}

interface ManualFetchOptions {
  progress?: Progress;
  signal?: AbortSignal;
}

export interface Fetcher {
  /**
   * A fetch the model asked for (the `fetch` tool), `url` normalised as the tool prints it. A
   * continuation (`startIndex` > 0) gets the page converted by the owner's last call for this URL and mode
   * within the cache's TTL, without asking the network (when there is none, it downloads again and says how the
   * page compares with a known earlier download, `redownload`); any other call checks robots.txt for the
   * autonomous user agent (unless `ignoreRobotsTxt`; refusals are `ToolError`s with the reference's
   * texts), fetches and converts as `fetchPage` does, and caches the page (`cache` options). A
   * cancelled call (`signal`) also stops its robots.txt request, and leaves nothing cached.
   */
  fetchAutonomously(url: string, options?: AutonomousFetchOptions): Promise<AutonomousPage>;
  /**
   * A fetch the user asked for (the `fetch` prompt): `fetchPage` with the user-specified agent, no
   * robots.txt check, nothing cached.
   */
  fetchManually(url: string, options?: ManualFetchOptions): Promise<FetchedPage>;
  /**
   * Fetches and converts a page within the timeout, with `userAgent`, no robots.txt check and no
   * cache; failures are `ToolError`s whose message is the model-facing text. `progress` hears about
   * the download and the conversion. When `signal` aborts (the client cancelled), the download is
   * dropped (its connection closed), a running conversion's worker is terminated, and it throws a
   * `ToolError` saying so.
   */
  fetchPage(url: string, options: FetchPageOptions): Promise<FetchedPage>;
  /**
   * The same fetcher for one session (a server instance: one per HTTP session): its conversions get
   * that session's fair share of the workers. Its `close` ends the session's share only; the fetcher
   * it came from stays open.
   */
  openSession(): Fetcher;
  /** Stops the workers and closes the connections (on a session's fetcher: ends that session's share). */
  close(): Promise<void>;
}

/**
 * Everything the fetch tool and prompt share, and which outlives a session: the HTTP agents, the
 * robots.txt checker and its cache, the page cache and the conversion workers. The tool and the prompt
 * only say who asked (`fetchAutonomously`, `fetchManually`); the fetcher decides robots.txt, the user
 * agent and the cache. One per process; every session's server uses it.
 */
export function createFetcher(options: FetcherOptions = {}): Fetcher {
  const logger = options.logger ?? silentLogger;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const http = createHttpClient({
    policy: {
      allowPrivateNetwork: options.allowPrivateNetwork ?? false,
      allowHosts: (options.allowHosts ?? []).map((h) => (typeof h === 'string' ? parseAllowHost(h) : h)),
      name: 'mcp-server-fetch',
    },
    resolve: options.resolve ?? systemResolver,
    ...(options.proxyUrl ? { proxyUrl: options.proxyUrl } : {}),
    timeoutMs,
    maxBytes: options.maxBytes ?? DEFAULT_MAX_BYTES,
    maxRedirects: options.maxRedirects ?? DEFAULT_MAX_REDIRECTS,
    limitFlags: { maxBytes: '--max-bytes', timeout: '--timeout' },
  });
  const robots = createRobotsChecker({ http, timeoutMs: Math.min(options.robotsTimeoutMs ?? 5_000, timeoutMs) });
  const converter = createConverter({
    logger,
    ...(options.conversionWorker !== undefined ? { worker: options.conversionWorker } : {}),
    ...(options.maxConversionWorkers !== undefined ? { maxWorkers: options.maxConversionWorkers } : {}),
  });
  // Shared by every session, keyed by owner: a continuation reads its owner's download, never another's.
  const pages = createPageCache<AutonomousPage>(options.cache);
  const userAgentAutonomous = options.userAgent ?? DEFAULT_USER_AGENT_AUTONOMOUS;
  const userAgentManual = options.userAgent ?? DEFAULT_USER_AGENT_MANUAL;
  const ignoreRobotsTxt = options.ignoreRobotsTxt ?? false;

  async function fetchPage(
    lane: Pick<ConversionLane, 'convert'>,
    url: string,
    { userAgent, raw = false, progress = noProgress, signal }: FetchPageOptions,
  ): Promise<FetchedPage> {
    const started = performance.now();
    // One deadline for the download and the conversion.
    const deadline = started + timeoutMs;
    let response: Awaited<ReturnType<typeof http.get>>;
    // Validation only (the prompt fetches the URL as given): a clear ToolError for a non-http(s) or invalid URL.
    normalizeUrl(url);
    if (signal?.aborted) throw new ToolError(cancelled(url));
    try {
      response = await http.get(url, {
        userAgent,
        onBody: (received, total) => progress.downloading(received, total),
        ...(signal ? { signal } : {}),
      });
    } catch (error) {
      if (signal?.aborted) throw new ToolError(cancelled(url));
      if (error instanceof HttpError) throw new ToolError(`Failed to fetch ${url}: ${error.message}`);
      throw error;
    }
    if (response.status >= 400) throw new ToolError(statusError(url, response.status));
    const contentType = response.headers['content-type'] ?? '';
    const size = response.body.length; // the body's buffer may move to the worker
    let converted: Converted;
    try {
      progress.converting(`${mimeOf(contentType) || 'an unlabelled response'} (${formatBytes(size)})`);
      converted = await lane.convert(
        { body: response.body, contentType, url: response.url, raw },
        { deadline, limitMs: timeoutMs, ...(signal ? { signal } : {}) },
      );
    } catch (error) {
      if (signal?.aborted) throw new ToolError(cancelled(url));
      if (error instanceof UnconvertibleError) throw new ToolError(`Failed to fetch ${url}: ${error.message}`);
      throw error;
    }
    logger.debug(
      `GET ${url} → ${response.status} ${mimeOf(contentType) || '(no type)'}, ${size} bytes → ${converted.kind}, ${converted.content.length} chars in ${Math.round(performance.now() - started)} ms`,
    );
    return { ...converted, url, finalUrl: response.url, status: response.status, contentType };
  }

  async function fetchAutonomously(
    lane: Pick<ConversionLane, 'convert'>,
    url: string,
    { raw = false, startIndex = 0, owner = '', downloadId: named, progress, signal }: AutonomousFetchOptions,
  ): Promise<AutonomousPage> {
    const key = { owner, url, raw };
    // A continuation reuses the page its owner's call that returned its start index converted.
    const cached = startIndex > 0 ? pages.get(key, named) : undefined;
    if (cached) return cached;
    // `signal` (the request's) stops robots.txt, redirects, the download and the conversion.
    if (!ignoreRobotsTxt) await robots.check(url, userAgentAutonomous, signal);
    const fetched = await fetchPage(lane, url, {
      userAgent: userAgentAutonomous,
      raw,
      ...(progress ? { progress } : {}),
      ...(signal ? { signal } : {}),
    });
    const page: AutonomousPage = { ...fetched, downloadId: downloadId(fetched) };
    // A continuation that downloads again compares the page with the earlier download: the one it names, else the
    // owner's last one (known for an hour after its page left the cache).
    const earlier = startIndex > 0 ? (named ?? pages.latest(key)) : undefined;
    await pages.set(key, page.downloadId, page);
    if (earlier === undefined) return page;
    return { ...page, redownload: earlier === page.downloadId ? 'unchanged' : 'changed' };
  }

  /** The fetcher as seen through `lane`: everything shared but the conversion lane, and `close`. */
  function view(lane: Pick<ConversionLane, 'convert'>, close: () => Promise<void>): Fetcher {
    return {
      fetchAutonomously: (url, fetchOptions = {}) => fetchAutonomously(lane, url, fetchOptions),
      fetchManually: (url, { progress, signal } = {}) =>
        fetchPage(lane, url, { userAgent: userAgentManual, ...(progress ? { progress } : {}), ...(signal ? { signal } : {}) }),
      fetchPage: (url, pageOptions) => fetchPage(lane, url, pageOptions),
      openSession() {
        const session = converter.openLane();
        return view(session, async () => session.close());
      },
      close,
    };
  }

  return view(converter, async () => {
    pages.clear();
    await Promise.all([converter.close(), http.close()]);
  });
}
