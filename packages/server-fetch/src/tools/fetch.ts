import { defineTool, structuredResult, ToolError } from '@mcpkit/protocol-core';
import { z } from 'zod';
import { redownloadNotice, URL_REQUIRED } from '../constants.js';
import type { AutonomousPage, Fetcher } from '../fetcher.js';
import { downloadOwner } from '../owner.js';
import { DOWNLOAD_ID } from '../pageCache.js';
import { paginate } from '../paging.js';
import { createProgress } from '../progress.js';
import { normalizeUrl } from '../url.js';

export interface FetchContext {
  fetcher: Fetcher;
}

// Verbatim from the reference (server.py @ 76d64c82), blank line included.
const DESCRIPTION = `Fetches a URL from the internet and optionally extracts its contents as markdown.

Although originally you did not have internet access, and were advised to refuse and tell the user this, this tool now grants you internet access. Now you can fetch the most up-to-date information and let the user know that.`;

export const fetchTool = defineTool({
  name: 'fetch',
  title: 'Fetch',
  description: DESCRIPTION,
  input: {
    url: z
      .url({ error: (issue) => (issue.input === undefined ? URL_REQUIRED : 'Invalid URL') })
      .min(1, URL_REQUIRED)
      .describe('URL to fetch'),
    // The reference's 0 < n < 1,000,000, as inclusive bounds: Gemini refuses exclusiveMinimum/exclusiveMaximum.
    max_length: z.number().int().min(1).max(999_999).default(5000).describe('Maximum number of characters to return.'),
    start_index: z
      .number()
      .int()
      .min(0)
      .default(0)
      .describe(
        'On return output starting at this character index, useful if a previous fetch was truncated and more context is required.',
      ),
    raw: z.boolean().default(false).describe('Get the actual HTML content of the requested page, without simplification.'),
    // Ours (optional, after the reference's four): names the download a continuation continues.
    // Its shape is checked in the handler, not as a schema `pattern`: the advertised schema stays the plain kind
    // every client's function-calling subset takes.
    download_id: z
      .string()
      .optional()
      .describe(
        'With start_index: the downloadId of the result the earlier part came from, so that this part continues the same download, or says whether the page changed.',
      ),
  },
  output: {
    url: z.string().describe('The URL fetched, normalised as in the text header'),
    finalUrl: z.string().describe('The URL that answered, after redirects'),
    status: z.number().int().describe('HTTP status of the final response'),
    contentType: z.string().describe('Content-Type header of the final response ("" when absent)'),
    title: z.string().nullable().describe('Page or document title, when there is one'),
    totalLength: z.number().int().describe('Length of the whole converted content, in characters (code points)'),
    nextStartIndex: z.number().int().nullable().describe('start_index for the next part, or null when this part reaches the end'),
    downloadId: z.string().describe('Names the download this text came from: pass it as download_id with the next start_index'),
  },
  // It only reads from the web; a repeat has no further effect; the web is an open world.
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  // A large document or a PDF may take longer than a client waits: a client that opts in gets a task (2026-07-28).
  task: 'optional',
  handler: async ({ url, max_length, start_index, raw, download_id }, { fetcher }: FetchContext, extra) => {
    if (download_id !== undefined && !DOWNLOAD_ID.test(download_id)) {
      throw new ToolError(
        'download_id: expected the downloadId of an earlier fetch result (22 characters); leave it out to continue the last download',
      );
    }
    const normalized = normalizeUrl(url);
    // The request's signal: a cancelled call (notifications/cancelled) stops robots.txt, redirects,
    // the download and the conversion; the SDK then sends no result.
    const progress = createProgress(extra);
    let page: AutonomousPage;
    try {
      page = await fetcher.fetchAutonomously(normalized, {
        raw,
        startIndex: start_index,
        owner: downloadOwner(extra),
        ...(download_id !== undefined ? { downloadId: download_id } : {}),
        progress,
        signal: extra.mcpReq.signal,
      });
    } finally {
      progress.end();
    }
    const part = paginate(page.content, start_index, max_length);
    return structuredResult(
      {
        url: normalized,
        finalUrl: page.finalUrl,
        status: page.status,
        contentType: page.contentType,
        title: page.title,
        totalLength: part.totalLength,
        nextStartIndex: part.nextStartIndex,
        downloadId: page.downloadId,
      },
      `${page.redownload ? redownloadNotice(page.redownload) : ''}${page.prefix}Contents of ${normalized}:\n${part.text}`,
    );
  },
});
