import { defineTool, errorMessage, ToolError } from '@mcpkit/protocol-core';
import { z } from 'zod';
import { readUrl } from '../../../shared/download.js';
import { createZip, type ZipEntry } from '../../../shared/zip.js';
import type { LegacySession } from '../session.js';
import { objectSchema } from './objectSchema.js';

/** The files of one `zip` call add up to at most this many bytes (the current profile's gzip limit, 10 MiB). */
const ZIP_MAX_INPUT_BYTES = 10 * 1024 * 1024;
/** And number at most this many. */
const ZIP_MAX_FILES = 1000;

/**
 * Fetches each URL (in order, one at a time) and returns the zip as a `data:application/zip;base64,…`
 * resource link. `data:` URIs are decoded here; http(s) URLs go through the injected downloader (the
 * server's network policy), and without one they are refused; other schemes are refused. The link has a
 * `name` (`files.zip`), which the reference's lacked: the MCP schema requires it, and every SDK client
 * rejected the reference's result without it.
 */
export const zip = defineTool({
  name: 'zip',
  title: 'Zip Files',
  description:
    'Compresses the provided resource files (mapping of name to URI, which can be a data URI) to a zip file, which it returns as a data URI resource link.',
  input: { files: z.record(z.string(), z.string().url()) },
  listing: {
    inputSchema: objectSchema(
      {
        files: {
          type: 'object',
          additionalProperties: { type: 'string', format: 'uri', description: 'URL of the file to include in the zip' },
          description: 'Mapping of file names to URLs to include in the zip',
        },
      },
      ['files'],
    ),
  },
  // Creates nothing (the zip comes back inline), but fetches URLs: open world.
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  async handler({ files }, session: LegacySession, extra) {
    const names = Object.keys(files);
    if (names.length > ZIP_MAX_FILES) throw new ToolError(`zip accepts at most ${ZIP_MAX_FILES} files; ${names.length} were given`);
    const signal = AbortSignal.any([extra.mcpReq.signal, session.closed]);
    const entries: ZipEntry[] = [];
    let total = 0;
    for (const [name, url] of Object.entries(files)) {
      let data: Uint8Array;
      try {
        data = await readUrl(url, { download: session.config.download, signal, maxBytes: ZIP_MAX_INPUT_BYTES - total });
      } catch (error) {
        signal.throwIfAborted();
        const reason =
          error instanceof RangeError ? `the files add up to more than ${ZIP_MAX_INPUT_BYTES} bytes, zip's limit` : errorMessage(error);
        throw new ToolError(`Error fetching file ${url}: ${reason}`);
      }
      total += data.byteLength;
      entries.push({ name, data });
    }
    let archive: Buffer;
    try {
      archive = createZip(entries);
    } catch (error) {
      throw new ToolError(`Cannot zip these files: ${errorMessage(error)}`);
    }
    return {
      content: [
        {
          type: 'resource_link',
          mimeType: 'application/zip',
          uri: `data:application/zip;base64,${archive.toString('base64')}`,
          name: 'files.zip',
        },
      ],
    };
  },
});
