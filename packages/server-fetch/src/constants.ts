/**
 * Texts and defaults shared with the reference (`mcp-server-fetch`, `src/fetch/src/mcp_server_fetch/server.py`
 * @ 76d64c82). Clients and prompts rely on them, so they are kept verbatim.
 */

export const DEFAULT_USER_AGENT_AUTONOMOUS = 'ModelContextProtocol/1.0 (Autonomous; +https://github.com/modelcontextprotocol/servers)';
export const DEFAULT_USER_AGENT_MANUAL = 'ModelContextProtocol/1.0 (User-Specified; +https://github.com/modelcontextprotocol/servers)';

export const NO_MORE_CONTENT = '<error>No more content available.</error>';

export function truncationNotice(nextStart: number): string {
  return `\n\n<error>Content truncated. Call the fetch tool with a start_index of ${nextStart} to get more content.</error>`;
}

export function rawContentPrefix(contentType: string): string {
  return `Content type ${contentType} cannot be simplified to markdown, but here is the raw content:\n`;
}

export function statusError(url: string, status: number): string {
  return `Failed to fetch ${url} - status code ${status}`;
}

export function robotsConnectionError(robotsUrl: string): string {
  return `Failed to fetch robots.txt ${robotsUrl} due to a connection issue`;
}

export function robotsStatusError(robotsUrl: string, status: number): string {
  return `When fetching robots.txt (${robotsUrl}), received status ${status} so assuming that autonomous fetching is not allowed, the user can try manually fetching by using the fetch prompt`;
}

export function robotsDisallowed(robotsUrl: string, userAgent: string, url: string, robotsTxt: string): string {
  return (
    `The sites robots.txt (${robotsUrl}), specifies that autonomous fetching of this page is not allowed, ` +
    `<useragent>${userAgent}</useragent>\n` +
    `<url>${url}</url>` +
    `<robots>\n${robotsTxt}\n</robots>\n` +
    'The assistant must let the user know that it failed to view the page. The assistant may provide further guidance based on the above information.\n' +
    'The assistant can tell the user that they can try manually fetching the page by using the fetch prompt within their UI.'
  );
}

export const URL_REQUIRED = 'URL is required';

/** Limits, one source for the CLI flags (`config.ts`) and `createFetcher` alike. */
export const DEFAULT_TIMEOUT_MS = 30_000; // the reference's fixed 30 s
export const DEFAULT_MAX_BYTES = 10 * 1024 * 1024; // ours: the reference had no cap
export const DEFAULT_MAX_REDIRECTS = 20; // httpx's default, which the reference uses

/** Ours: the client cancelled the call (`notifications/cancelled`). The SDK sends no result; logs and direct callers see this. */
export function cancelled(url: string): string {
  return `Fetching ${url} was cancelled by the client`;
}

/**
 * Ours, not the reference's: the first line of a continuation (`start_index` > 0) that found no cached download of
 * its own and downloaded the page again, saying how the page compares with the known earlier download.
 */
export function redownloadNotice(how: 'unchanged' | 'changed'): string {
  const again = 'The earlier download of this page is no longer cached here, so it was downloaded again for this part';
  if (how === 'unchanged') return `<note>${again}; it has not changed since.</note>\n`;
  return `<note>${again}, and it has changed since: this part may not continue the earlier one (text may be skipped or repeated). Fetch it again from start_index 0 for a consistent copy.</note>\n`;
}
