import { ToolError } from '@mcpkit/protocol-core';

/**
 * The URL as the reference's pydantic `AnyUrl` prints it (WHATWG serialisation: lower-case scheme
 * and host, IDNA, default port dropped, `/` for an empty path), limited to http and https.
 */
export function normalizeUrl(input: string): string {
  let url: URL;
  try {
    url = new URL(input.trim());
  } catch {
    throw new ToolError(
      `Failed to fetch ${input}: ${input.trim() ? 'the URL is not valid' : 'the URL is empty'} (an absolute http or https URL is required)`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ToolError(`Failed to fetch ${input}: only http and https URLs can be fetched, not ${url.protocol.slice(0, -1)}`);
  }
  return url.href;
}
