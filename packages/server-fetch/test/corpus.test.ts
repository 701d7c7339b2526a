/**
 * Extraction quality on the 130 real pages of Mozilla Readability's test suite (vendored in
 * `@mcpkit/html-corpus`, Apache-2.0), served from 127.0.0.1 and fetched through the tool. For each page, the text of our Markdown
 * (rendered by `marked`, tags dropped) is compared with the text of `expected.html` (the article
 * Readability extracts) as bag-of-words F1: the harmonic mean of the share of our words that are
 * expected (precision) and the share of expected words that we return (recall), counting repeats.
 */
import { loadCorpus } from '@mcpkit/html-corpus';
import { parseHTML } from 'linkedom';
import { marked } from 'marked';
import { expect, it } from 'vitest';
import { callFetch, connect, startServer, text } from './helpers.js';

/** The median F1 measured when this test was written was 1.000 (mean 0.993); a drop below fails. */
const MEDIAN_FLOOR = 0.98;
/** And no more than this share of pages below 0.9. */
const LOW_SHARE_CEILING = 0.03;

function words(s: string): string[] {
  return s.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

function f1(ours: string[], expected: string[]): number {
  if (ours.length === 0 || expected.length === 0) return ours.length === expected.length ? 1 : 0;
  const counts = new Map<string, number>();
  for (const w of expected) counts.set(w, (counts.get(w) ?? 0) + 1);
  let overlap = 0;
  for (const w of ours) {
    const c = counts.get(w) ?? 0;
    if (c > 0) {
      overlap++;
      counts.set(w, c - 1);
    }
  }
  const precision = overlap / ours.length;
  const recall = overlap / expected.length;
  return precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
}

function htmlText(html: string): string {
  return parseHTML(`<!doctype html><html><body>${html}</body></html>`).document.body.textContent ?? '';
}

it('extracts the corpus articles (median text F1 against expected.html)', { timeout: 180_000 }, async () => {
  const corpus = new Map(loadCorpus().map((page) => [page.name, page]));
  expect(corpus.size).toBe(130);

  await using server = await startServer(async (req, res) => {
    const name = decodeURIComponent((req.url ?? '/').split('/')[1] ?? '');
    const page = corpus.get(name);
    if (!page) {
      res.statusCode = 404;
      res.end();
      return;
    }
    res.setHeader('content-type', 'text/html; charset=utf-8');
    res.end(page.source);
  });
  await using pair = await connect({ allowHosts: [`127.0.0.1:${server.port}`] });

  const scores: { page: string; f1: number }[] = [];
  for (const { name: page, expected: article } of corpus.values()) {
    const url = `${server.origin}/${encodeURIComponent(page)}/`;
    let markdown = '';
    for (let start: number | null = 0; start !== null; ) {
      const result = await callFetch(pair, { url, max_length: 999_999, start_index: start });
      expect(result.isError, `${page}: ${text(result).slice(0, 200)}`).toBeFalsy();
      markdown += text(result)
        .slice(`Contents of ${url}:\n`.length)
        .replace(/\n\n<error>Content truncated\.[^<]*<\/error>$/, '');
      start = (result.structuredContent as { nextStartIndex: number | null }).nextStartIndex;
    }
    const ours = words(htmlText(await marked.parse(markdown)));
    const expected = words(htmlText(article));
    scores.push({ page, f1: f1(ours, expected) });
  }

  scores.sort((a, b) => a.f1 - b.f1);
  const median = scores[Math.floor(scores.length / 2)]!.f1;
  const mean = scores.reduce((s, x) => s + x.f1, 0) / scores.length;
  const low = scores.filter((s) => s.f1 < 0.9);
  console.log(
    `corpus: ${scores.length} pages, median F1 ${median.toFixed(3)}, mean ${mean.toFixed(3)}, below 0.9: ${low.length}\n` +
      `worst: ${scores
        .slice(0, 8)
        .map((s) => `${s.page} ${s.f1.toFixed(3)}`)
        .join(', ')}`,
  );
  expect(median).toBeGreaterThanOrEqual(MEDIAN_FLOOR);
  expect(low.length / scores.length).toBeLessThanOrEqual(LOW_SHARE_CEILING);
});
