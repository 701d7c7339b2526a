/**
 * Redirects: every hop (the URL, then each redirect target) is checked before it is sent, a limit on
 * how many are followed, and credentials dropped when a redirect leaves the origin.
 */
import type { Dispatcher } from 'undici';
import { HttpError, repr } from './errors.js';
import { checkProxiedName, checkUrl, type NetworkPolicy, type Strictness, strictnessFor } from './policy.js';
import type { Hop } from './send.js';

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** Request headers that do not follow a redirect to another origin. */
const CREDENTIALS = new Set(['authorization', 'proxy-authorization', 'cookie']);

export interface HopPolicy {
  policy: NetworkPolicy;
  /** Through a proxy, the name the proxy will resolve is checked too. */
  proxyUrl?: string | undefined;
  /** The caller's own check, after the policy's: throw to refuse the URL. */
  checkUrl?: ((url: URL) => void) | undefined;
}

/**
 * Checks a hop before it is sent: http(s) only, the network policy (and, through a proxy, the name the
 * proxy will resolve), then the caller's own hook. A refusal is an HttpError naming the hop (`context`);
 * returns how strictly the connection's address must be checked.
 */
export function checkHop({ policy, proxyUrl, checkUrl: hook }: HopPolicy, target: URL, context: string): Strictness {
  if (target.protocol !== 'http:' && target.protocol !== 'https:') {
    throw new HttpError('scheme', `${context}only http and https URLs can be fetched, not ${target.protocol.slice(0, -1)}`);
  }
  try {
    checkUrl(policy, target);
    if (proxyUrl) checkProxiedName(policy, target);
    hook?.(target);
  } catch (error) {
    if (error instanceof HttpError) throw error;
    throw new HttpError('blocked', context + (error instanceof Error ? error.message : String(error)), { cause: error });
  }
  return strictnessFor(policy, target);
}

/** Response headers as one lower-case name → value record (repeated headers joined with `, `). */
export function flatHeaders(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value !== undefined) out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

export interface FollowOptions extends HopPolicy {
  /** Redirects followed at most; one more fails with `HttpError('redirects')`. */
  maxRedirects: number;
  /** With `maxRedirects` 0, a redirect is the answer instead of an error (a method that never follows one). */
  answerRedirects?: boolean;
  /** The request headers of the first hop. */
  headers: Record<string, string>;
  /** Sends one checked hop (`index` 0 for the URL itself) with the headers it may carry. */
  send(hop: Hop, index: number, headers: Record<string, string>): Promise<Dispatcher.ResponseData>;
}

export interface Answer {
  /** The URL that answered. */
  target: URL;
  response: Dispatcher.ResponseData;
  /** `response.headers`, flattened. */
  headers: Record<string, string>;
}

/** Sends `url` and follows its redirects, each hop checked first; resolves to the first response that is not followed. */
export async function followRedirects(url: string, options: FollowOptions): Promise<Answer> {
  const { maxRedirects } = options;
  let current = url;
  let headers = { ...options.headers };
  for (let index = 0; ; index++) {
    const target = new URL(current);
    const context = current === url ? '' : `redirected to ${current}; `;
    const strictness = checkHop(options, target, context);
    const response = await options.send({ target, strictness, context }, index, headers);
    const responseHeaders = flatHeaders(response.headers);
    const location = REDIRECTS.has(response.statusCode) ? responseHeaders.location : undefined;
    if (!location || (maxRedirects === 0 && options.answerRedirects)) return { target, response, headers: responseHeaders };
    await response.body.dump().catch(() => {});
    if (index >= maxRedirects) throw new HttpError('redirects', repr('TooManyRedirects', 'Exceeded maximum allowed redirects.'));
    let next: URL;
    try {
      next = new URL(location, target);
    } catch {
      throw new HttpError('connect', repr('RemoteProtocolError', `Invalid redirect location: ${location}`));
    }
    if (next.origin !== target.origin) {
      headers = Object.fromEntries(Object.entries(headers).filter(([name]) => !CREDENTIALS.has(name.toLowerCase())));
    }
    current = next.href;
  }
}
