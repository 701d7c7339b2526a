// Pages that belong together: a continuation (start_index > 0) reads the download its first part came from, another
// client's download never replaces it, and a continuation that had to download again says so, and how the page
// compares. The origin serves a new version of the page on every download.
import type { ServerResponse } from 'node:http';
import { startHttp } from '@mcpkit/protocol-core/testing';
import type { Client } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { createFetcher, createFetchServer, type FetcherOptions } from '../src/server.js';
import { routes, send, startServer, text } from './helpers.js';

const LINES = 40;
/** The reference's first line for a text/plain page. */
const PREFIX = 'Content type text/plain cannot be simplified to markdown, but here is the raw content:\n';
/** Version `v` of the page: 40 numbered lines of 20 characters each (800 characters). */
const version = (v: number) =>
  Array.from({ length: LINES }, (_, i) => `v${v} line ${String(i).padStart(2, '0')}`.padEnd(19, '.'))
    .map((l) => `${l}\n`)
    .join('');

/** An origin whose `/doc` changes with every download, and `/fixed` never does. */
async function origin() {
  let downloads = 0;
  return startServer(
    routes({
      '/doc': (_req, res: ServerResponse) => {
        downloads++;
        res.setHeader('content-type', 'text/plain');
        res.end(version(downloads));
      },
      '/fixed': send(version(0), 'text/plain'),
    }),
  );
}

/** The CLI's wiring: one fetcher shared by every server the runner builds. */
function app(options: FetcherOptions) {
  const fetcher = createFetcher(options);
  return { createServer: () => createFetchServer({ fetcher }), close: () => fetcher.close() };
}

const fetchText = async (client: Client, args: Record<string, unknown>) => {
  const result = await client.callTool({ name: 'fetch', arguments: { max_length: 200, ...args } });
  expect(result.isError).toBeFalsy();
  return text(result);
};

/** The text after the `Contents of …:` header, without the truncation notice. */
const body = (answer: string) =>
  answer.slice(answer.indexOf(':\n', answer.indexOf('Contents of ')) + 2).replace(/\n\n<error>Content truncated[\s\S]*$/, '');

describe('continuations read their own download', () => {
  it('two clients on one process: the second download does not replace the first one under its reader', async () => {
    await using site = await origin();
    await using http = await startHttp(app({ allowHosts: [`127.0.0.1:${site.port}`], ignoreRobotsTxt: true }));
    const a = await http.connect({ mode: 'legacy' });
    const b = await http.connect({ mode: 'legacy' });
    const url = `${site.origin}/doc`;
    const first = await fetchText(a, { url });
    expect(body(first)).toBe(version(1).slice(0, 200));
    expect(body(await fetchText(b, { url }))).toBe(version(2).slice(0, 200));
    // a continues from its own download (version 1), not b's (version 2), and nothing was downloaded again.
    const second = await fetchText(a, { url, start_index: 200 });
    expect(second).toBe(
      `${PREFIX}Contents of ${url}:\n${version(1).slice(200, 400)}\n\n<error>Content truncated. Call the fetch tool with a start_index of 400 to get more content.</error>`,
    );
    expect(body(await fetchText(b, { url, start_index: 200 }))).toBe(version(2).slice(200, 400));
    expect(site.hits('/doc')).toBe(2);
  });

  it('a continuation whose download was evicted downloads again and says the page changed', async () => {
    await using site = await origin();
    await using http = await startHttp(app({ allowHosts: [`127.0.0.1:${site.port}`], ignoreRobotsTxt: true, cache: { maxEntries: 1 } }));
    const client = await http.connect({ mode: 'legacy' });
    const url = `${site.origin}/doc`;
    await fetchText(client, { url });
    await fetchText(client, { url: `${site.origin}/fixed` }); // evicts /doc's download
    const again = await fetchText(client, { url, start_index: 200 });
    expect(again).toBe(
      '<note>The earlier download of this page is no longer cached here, so it was downloaded again for this part, and it has changed since: this part may not continue the earlier one (text may be skipped or repeated). Fetch it again from start_index 0 for a consistent copy.</note>\n' +
        `${PREFIX}Contents of ${url}:\n${version(2).slice(200, 400)}\n\n<error>Content truncated. Call the fetch tool with a start_index of 400 to get more content.</error>`,
    );
    // The new download is the one the next part continues, without a note.
    expect(await fetchText(client, { url, start_index: 400 })).toMatch(
      new RegExp(`^${PREFIX}Contents of ${url}:\\n${version(2).slice(400, 420)}`),
    );
    expect(site.hits('/doc')).toBe(2);
  });

  it('the same, for a page that did not change: the note says so', async () => {
    await using site = await origin();
    await using http = await startHttp(app({ allowHosts: [`127.0.0.1:${site.port}`], ignoreRobotsTxt: true, cache: { maxEntries: 1 } }));
    const client = await http.connect({ mode: '2026-07-28' });
    const url = `${site.origin}/fixed`;
    await fetchText(client, { url });
    await fetchText(client, { url: `${site.origin}/doc` });
    expect(await fetchText(client, { url, start_index: 200 })).toMatch(
      /^<note>The earlier download of this page is no longer cached here, so it was downloaded again for this part; it has not changed since\.<\/note>\nContent type text\/plain cannot be simplified to markdown, but here is the raw content:\nContents of /,
    );
  });

  it('a continuation on another replica that names no download: nothing to compare with, the reference text', async () => {
    await using site = await origin();
    const options = { allowHosts: [`127.0.0.1:${site.port}`], ignoreRobotsTxt: true };
    await using one = await startHttp(app(options));
    await using two = await startHttp(app(options));
    const url = `${site.origin}/doc`;
    await fetchText(await one.connect({ mode: '2026-07-28' }), { url });
    // The same answer as a first call at start_index 200 (there may have been no earlier part at all).
    expect(await fetchText(await two.connect({ mode: '2026-07-28' }), { url, start_index: 200 })).toBe(
      `${PREFIX}Contents of ${url}:\n${version(2).slice(200, 400)}\n\n<error>Content truncated. Call the fetch tool with a start_index of 400 to get more content.</error>`,
    );
  });

  it('2026 clients without OAuth share the process: download_id keeps each on its own download', async () => {
    await using site = await origin();
    await using http = await startHttp(app({ allowHosts: [`127.0.0.1:${site.port}`], ignoreRobotsTxt: true }));
    const a = await http.connect({ mode: '2026-07-28' });
    const b = await http.connect({ mode: '2026-07-28' });
    const url = `${site.origin}/doc`;
    const first = await a.callTool({ name: 'fetch', arguments: { url, max_length: 200 } });
    const id = (first.structuredContent as { downloadId: string }).downloadId;
    expect(id).toMatch(/^[A-Za-z0-9_-]{22}$/);
    await fetchText(b, { url }); // version 2, the process's last download of the page
    // a names its download: version 1, from the cache, no note; without the id it would get b's.
    const second = await a.callTool({ name: 'fetch', arguments: { url, max_length: 200, start_index: 200, download_id: id } });
    expect(text(second)).toBe(
      `${PREFIX}Contents of ${url}:\n${version(1).slice(200, 400)}\n\n<error>Content truncated. Call the fetch tool with a start_index of 400 to get more content.</error>`,
    );
    expect(second.structuredContent).toMatchObject({ downloadId: id, nextStartIndex: 400 });
    expect(site.hits('/doc')).toBe(2);
  });

  it('download_id on another replica: the note says whether the page is still the one the earlier part came from', async () => {
    await using site = await origin();
    const options = { allowHosts: [`127.0.0.1:${site.port}`], ignoreRobotsTxt: true };
    await using one = await startHttp(app(options));
    await using two = await startHttp(app(options));
    const first = await one.connect({ mode: '2026-07-28' });
    const idOf = async (url: string) =>
      ((await first.callTool({ name: 'fetch', arguments: { url, max_length: 200 } })).structuredContent as { downloadId: string })
        .downloadId;
    const fixed = await idOf(`${site.origin}/fixed`);
    const doc = await idOf(`${site.origin}/doc`);
    const client = await two.connect({ mode: '2026-07-28' });
    expect(await fetchText(client, { url: `${site.origin}/fixed`, start_index: 200, download_id: fixed })).toMatch(
      /^<note>[^<]*; it has not changed since\.<\/note>\n/,
    );
    expect(await fetchText(client, { url: `${site.origin}/doc`, start_index: 200, download_id: doc })).toMatch(
      /^<note>[^<]*, and it has changed since: /,
    );
    const url = `${site.origin}/fixed`;
    const bad = await client.callTool({ name: 'fetch', arguments: { url, start_index: 200, download_id: 'nope' } });
    expect(bad).toMatchObject({
      isError: true,
      content: [
        {
          text: 'download_id: expected the downloadId of an earlier fetch result (22 characters); leave it out to continue the last download',
        },
      ],
    });
  });
});
