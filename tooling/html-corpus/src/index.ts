/**
 * The 130 real web pages of Mozilla Readability's test suite, each with the article Readability
 * extracts from it, vendored in this repository (Apache-2.0, see LICENSE and README.md) so that the
 * quality test and the bench need nothing outside the checkout.
 */
import { readFileSync } from 'node:fs';
import { brotliDecompressSync } from 'node:zlib';

export interface CorpusPage {
  /** The page's folder name in the upstream suite, e.g. `wikipedia-2`. */
  name: string;
  /** The page as served. */
  source: string;
  /** The article content Readability extracts (`expected.html`). */
  expected: string;
  /** Title, byline, excerpt, site name, language, direction, readerable (`expected-metadata.json`). */
  metadata: Record<string, unknown>;
}

const DATA = new URL('../data/pages.json.br', import.meta.url);

/** Reads and decompresses every page (about 29 MB of text), in name order. */
export function loadCorpus(): CorpusPage[] {
  return JSON.parse(brotliDecompressSync(readFileSync(DATA)).toString('utf8')) as CorpusPage[];
}
