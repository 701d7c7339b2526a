import { type HttpClient, HttpError } from '@mcpkit/net';
import { ToolError } from '@mcpkit/protocol-core';
import type { LRUCache } from 'lru-cache';
import { cancelled, robotsConnectionError, robotsDisallowed, robotsStatusError } from './constants.js';

/** `scheme://host[:port]/robots.txt` of a URL (path, query and fragment dropped), as the reference builds it. */
export function robotsTxtUrl(url: string): string {
  const u = new URL(url);
  return `${u.protocol}//${u.host}/robots.txt`;
}

/** RFC 9309 §2.5: crawlers must read at least the first 500 KiB. */
const ROBOTS_MAX_BYTES = 500 * 1024;
/** RFC 9309 §2.3.1.2: follow at least five consecutive redirects. */
const ROBOTS_MAX_REDIRECTS = 5;

interface Robots {
  isAllowed(url: string, ua?: string): boolean | undefined;
}

async function loadParser(): Promise<(url: string, text: string) => Robots> {
  // CommonJS module whose typings declare no callable default; its `module.exports` is the parser.
  const mod = (await import('robots-parser')) as unknown as { default: (url: string, text: string) => Robots };
  return mod.default;
}

type RobotsRules = { kind: 'allow-all' } | { kind: 'rules'; text: string; isAllowed: (url: string, ua: string) => boolean | undefined };

export interface RobotsChecker {
  /**
   * Throws a `ToolError` with the reference's text when `userAgent` may not fetch `url`. `signal`
   * aborts the robots.txt fetch (a `ToolError` saying the call was cancelled; nothing is cached).
   */
  check(url: string, userAgent: string, signal?: AbortSignal): Promise<void>;
}

/**
 * robots.txt per RFC 9309 with the reference's texts: 2xx → parsed (`robots-parser`: product-token
 * matching, longest match, Allow wins ties); 401/403 → refused; other 4xx → allowed; 5xx, timeouts and
 * connection failures → refused (the reference allowed 5xx and had no timeout). Fetched with its own
 * short timeout and cached per origin (successes only, so an outage is retried on the next call).
 */
export function createRobotsChecker({
  http,
  timeoutMs,
  ttlMs = 10 * 60_000,
}: {
  http: HttpClient;
  timeoutMs: number;
  ttlMs?: number;
}): RobotsChecker {
  // Created on the first check: lru-cache is imported then, not when the server starts.
  let rulesCache: Promise<LRUCache<string, RobotsRules>> | undefined;
  const cached = () =>
    (rulesCache ??= import('lru-cache').then(
      ({ LRUCache }) =>
        new LRUCache<string, RobotsRules>({
          max: 256,
          maxSize: 16 * 1024 * 1024,
          ttl: ttlMs,
          ttlResolution: 0, // no timer per lookup (see pageCache.ts)
          sizeCalculation: (r) => (r.kind === 'rules' ? Math.max(1, r.text.length * 2) : 1),
        }),
    ));

  async function load(robotsUrl: string, pageUrl: string, userAgent: string, signal: AbortSignal | undefined): Promise<RobotsRules> {
    let response: Awaited<ReturnType<HttpClient['get']>>;
    try {
      response = await http.get(robotsUrl, {
        userAgent,
        timeoutMs,
        maxBytes: ROBOTS_MAX_BYTES,
        maxRedirects: ROBOTS_MAX_REDIRECTS,
        truncate: true,
        ...(signal ? { signal } : {}),
      });
    } catch (error) {
      if (signal?.aborted) throw new ToolError(cancelled(pageUrl));
      if (error instanceof HttpError && error.kind === 'blocked') {
        // The page's own host is refused (robots.txt lives there), or robots.txt redirected somewhere refused.
        const where = error.message.startsWith('redirected') ? `robots.txt ${error.message}` : error.message;
        throw new ToolError(`Failed to fetch ${pageUrl}: ${where}`);
      }
      // RFC 9309 §2.3.1.2: more redirects than that → the file is treated as unavailable (allowed).
      if (error instanceof HttpError && error.kind === 'redirects') return { kind: 'allow-all' };
      throw new ToolError(robotsConnectionError(robotsUrl));
    }
    const { status } = response;
    if (status === 401 || status === 403 || status >= 500) throw new ToolError(robotsStatusError(robotsUrl, status));
    if (status >= 400) return { kind: 'allow-all' };
    const text = new TextDecoder('utf-8').decode(response.body);
    const robots = (await loadParser())(robotsUrl, text);
    return { kind: 'rules', text, isAllowed: (url, ua) => robots.isAllowed(url, ua) };
  }

  return {
    async check(url, userAgent, signal) {
      const robotsUrl = robotsTxtUrl(url);
      const cache = await cached();
      let rules = cache.get(robotsUrl);
      if (!rules) {
        rules = await load(robotsUrl, url, userAgent, signal);
        cache.set(robotsUrl, rules);
      }
      if (rules.kind === 'rules' && rules.isAllowed(url, userAgent) === false) {
        throw new ToolError(robotsDisallowed(robotsUrl, userAgent, url, rules.text));
      }
    },
  };
}
