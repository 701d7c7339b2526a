/**
 * @mcpkit/net: the SSRF-safe network policy and guarded HTTP client shared by mcpkit servers.
 */
export { createDownloader, type Downloader, type DownloaderOptions, type DownloadOptions, networkPolicy } from './download.js';
export { HttpError, type HttpErrorKind } from './errors.js';
export { formatDuration } from './format.js';
export {
  createHttpClient,
  type GetOptions,
  type HttpClient,
  type HttpClientOptions,
  type HttpResponse,
  type RequestOptions,
  type StreamedResponse,
} from './http.js';
export { type NetworkOptionsEnv, networkOptions, parseProxyUrl, proxyOption } from './options.js';
export {
  type AllowedHost,
  BlockedDestinationError,
  checkAddress,
  checkProxiedName,
  checkUrl,
  DEFAULT_POLICY_NAME,
  guardedLookup,
  type NetworkPolicy,
  parseAllowHost,
  parseIp,
  type ResolvedAddress,
  type Resolver,
  type Strictness,
  strictnessFor,
  urlHost,
  urlPort,
} from './policy.js';
export { systemResolver } from './resolve.js';
