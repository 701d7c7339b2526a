import { gzipSync } from 'node:zlib';
import { defineTool, errorMessage, ToolError } from '@mcpkit/protocol-core';
import { z } from 'zod';
import { decodeDataUri } from '../../../shared/dataUri.js';
import { refuseDownload } from '../../../shared/download.js';
import { getSessionResourceURI } from '../resources/session.js';
import type { CurrentConfig, CurrentSession } from '../session.js';

/**
 * `data` must be http(s) or data:, and an http(s) host must be allowed by `gzipAllowedDomains` (when
 * set); the reference's messages.
 */
function validateDataURI(data: string, allowedDomains: readonly string[]): URL {
  const url = new URL(data);
  const refuse = (message: string) => new ToolError(`Error processing file ${data}: ${message}`);
  if (url.protocol !== 'http:' && url.protocol !== 'https:' && url.protocol !== 'data:') {
    throw refuse(`Unsupported URL protocol for ${data}. Only http, https, and data URLs are supported.`);
  }
  if (allowedDomains.length > 0 && url.protocol !== 'data:') {
    const host = url.hostname;
    if (!allowedDomains.some((domain) => host === domain || host.endsWith(`.${domain}`))) {
      throw refuse(`Domain ${host} is not in the allowed domains list.`);
    }
  }
  return url;
}

/**
 * The file's bytes: a data: URI is decoded here (`shared/dataUri.ts`); an http(s) URL goes to the
 * injected downloader (the network policy), or to `refuseDownload` when there is none. The reference's
 * size and time limits and their messages; a downloader's own failure is prefixed like a URL error.
 */
async function fetchSafely(url: URL, config: CurrentConfig, signal: AbortSignal): Promise<Uint8Array> {
  const maxBytes = config.gzipMaxFetchSize;
  const tooLarge = () => new ToolError(`Response from ${url} exceeds ${maxBytes} bytes`);
  if (url.protocol === 'data:') {
    let bytes: Uint8Array;
    try {
      // No limit here, so that a too large file gets the reference's message below (the URI is in memory already).
      bytes = decodeDataUri(url.href, Number.MAX_SAFE_INTEGER).bytes;
    } catch (error) {
      throw new ToolError(`Error processing file ${url}: ${errorMessage(error)}`, { cause: error });
    }
    if (bytes.byteLength > maxBytes) throw tooLarge();
    return bytes;
  }
  const download = config.download ?? refuseDownload;
  const timeout = new AbortController();
  // On the session's scheduler (unref'd by default), so a test moves the limit's clock instead of waiting it out.
  const timer = config.scheduler.setTimeout(
    () => timeout.abort(new ToolError(`Fetching ${url} took more than ${config.gzipMaxFetchTimeMs} ms and was aborted.`)),
    config.gzipMaxFetchTimeMs,
  );
  try {
    const bytes = await download(url, { signal: AbortSignal.any([signal, timeout.signal]), maxBytes });
    if (bytes.byteLength > maxBytes) throw tooLarge();
    return bytes;
  } catch (error) {
    if (timeout.signal.aborted) throw timeout.signal.reason;
    if (error instanceof ToolError || signal.aborted) throw error;
    // The downloader's refusal (no network policy, blocked destination, HTTP failure) is meant for the model.
    throw new ToolError(`Error processing file ${url}: ${errorMessage(error)}`, { cause: error });
  } finally {
    config.scheduler.clearTimeout(timer);
  }
}

export const gzipFileAsResource = defineTool({
  name: 'gzip-file-as-resource',
  title: 'GZip File as Resource Tool',
  description:
    'Compresses a single file using gzip compression. Depending upon the selected output type, returns either the compressed data as a gzipped resource or a resource link, allowing it to be downloaded in a subsequent request during the current session.',
  input: {
    name: z.string().describe('Name of the output file').default('README.md.gz'),
    data: z
      .url()
      .describe('URL or data URI of the file content to compress')
      .default('https://raw.githubusercontent.com/modelcontextprotocol/servers/refs/heads/main/README.md'),
    outputType: z
      .enum(['resourceLink', 'resource'])
      .default('resourceLink')
      .describe(
        "How the resulting gzipped file should be returned. 'resourceLink' returns a link to a resource that can be read later, 'resource' returns a full resource object.",
      ),
  },
  // It replaces the session resource of the same name (the reference says destructiveHint: false), and
  // fetches http(s) URLs.
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
  handler: async ({ name, data, outputType }, session: CurrentSession, extra) => {
    const uri = getSessionResourceURI(name);
    const url = validateDataURI(data, session.config.gzipAllowedDomains);
    const body = await fetchSafely(url, session.config, AbortSignal.any([extra.mcpReq.signal, session.closed]));
    const blob = gzipSync(body).toString('base64');
    const mimeType = 'application/gzip';
    const link = session.sessionResources.register({ uri, name, mimeType }, 'blob', blob);
    if (outputType === 'resource') return { content: [{ type: 'resource', resource: { uri, mimeType, blob } }] };
    return { content: [link] };
  },
});
