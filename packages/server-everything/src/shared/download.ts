/**
 * How the everything server fetches http(s) URLs (`gzip-file-as-resource` in the current profile, `zip`
 * in the legacy one). The server never fetches by itself: the CLI injects a downloader built on the
 * SSRF-safe network policy shared with server-fetch; without one, only `data:` URIs are accepted.
 *
 * Exports (stable): `Download`, `DownloadOptions`, `refuseDownload`, `readUrl`, `ReadUrlOptions`.
 */

import { decodeDataUri } from './dataUri.js';

export interface DownloadOptions {
  /** Aborts the download: the caller's time limit, the request's cancellation, or the session closing. */
  signal: AbortSignal;
  /** The largest body the caller accepts. A downloader should stop reading and throw once a body exceeds it. */
  maxBytes: number;
}

/**
 * Fetches `url` (http: or https:) through the server's network policy and resolves to the response body.
 * Throws an `Error` whose message is fit to show the model when the destination is refused or the
 * download fails; rejects with `options.signal.reason` when aborted.
 */
export type Download = (url: URL, options: DownloadOptions) => Promise<Uint8Array>;

/**
 * The downloader used when none is injected: refuses every http(s) URL with a message that says why and
 * what works instead. The CLI replaces it with the guarded client once that exists.
 */
export const refuseDownload: Download = async (url) => {
  throw new Error(
    `this server does not fetch ${url.protocol}// URLs (no network policy is configured); pass the file's content as a data: URI instead`,
  );
};

export interface ReadUrlOptions extends DownloadOptions {
  /** Fetches http(s) URLs; `refuseDownload` when absent. */
  download?: Download | undefined;
}

/**
 * The bytes behind `url`: a `data:` URI is decoded here (no network, at most `maxBytes`), an http(s) URL
 * goes to `download`, and any other scheme (`file:`, `ftp:`, …) is refused. Throws an `Error` whose message
 * is fit to show the model (a `RangeError` when the body is over `maxBytes`, if the downloader did not
 * throw first); the caller adds which URL it was about.
 */
export async function readUrl(url: string | URL, { download = refuseDownload, signal, maxBytes }: ReadUrlOptions): Promise<Uint8Array> {
  const href = typeof url === 'string' ? url : url.href;
  if (/^data:/i.test(href)) return decodeDataUri(href, maxBytes).bytes;
  let parsed: URL;
  try {
    parsed = typeof url === 'string' ? new URL(url) : url;
  } catch {
    throw new Error('not a valid URL');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new Error(`unsupported URL scheme ${parsed.protocol} (data:, http: and https: URLs are accepted)`);
  }
  signal.throwIfAborted();
  const bytes = await download(parsed, { signal, maxBytes });
  if (bytes.byteLength > maxBytes) throw new RangeError(`the response is larger than ${maxBytes} bytes`);
  return bytes;
}
