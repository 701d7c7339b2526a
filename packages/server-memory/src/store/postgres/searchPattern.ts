/**
 * Which pattern the trigram index is asked with. A GIN `pg_trgm` scan reads the whole posting list of
 * every trigram of its pattern, and the trigrams of common words (`obs`, `ion`, ` a ` …) are in
 * nearly every row: at 1M entities a query such as `observation 543210-a` read ~34 MB of index
 * (70-140 ms) to find one row, while `543210` alone took 0.5 ms. So the index gets the query's
 * rarest word when the query holds a common trigram, and the exact field-by-field `ILIKE` of the
 * whole query (`reads.ts`) decides what matches: any substring of the query is implied by a match,
 * so the result never changes, only the cost of finding the candidates.
 *
 * How common a trigram is comes from a sample of the graph's rows (evenly spaced in insertion
 * order, found through the `(graph, seq)` index, so its cost does not grow with the graph), taken
 * in the background at the first search (which, like any before the sample lands, asks with the whole
 * query) and again once it is older than `maxAgeMs`.
 */
import type { PoolClient } from 'pg';
import { containsPattern } from './text.js';

/** A trigram in more than this share of the sampled rows is common: its posting list is costly to read. */
const COMMON_SHARE = 0.02;
/** Rows sampled per graph. */
const SAMPLE_ROWS = 1000;

/** Share of the sampled rows holding each common trigram (`pg_trgm`'s trigrams: lower case, padded words). */
export type TrigramShares = ReadonlyMap<string, number>;

/** The trigrams in more than `COMMON_SHARE / 4` of `rows` sampled rows of the graph, with their share. */
export async function sampleTrigrams(db: PoolClient, graph: string, rows = SAMPLE_ROWS): Promise<TrigramShares> {
  const { rows: found } = await db.query<{ trigram: string; share: number }>(
    `WITH b AS (SELECT min(seq) AS lo, max(seq) AS hi FROM memory_entities WHERE graph = $1),
          picks AS (
            SELECT DISTINCT e.name_key, e.t
              FROM b, generate_series(0, $2::int - 1) AS k,
                   LATERAL (SELECT name_key, memory_search_text(name, entity_type, observations) AS t FROM memory_entities
                             WHERE graph = $1 AND seq >= b.lo + (b.hi - b.lo) * k / $2::int ORDER BY seq LIMIT 1) AS e
             WHERE b.lo IS NOT NULL),
          n AS (SELECT count(*) AS n FROM picks)
     SELECT g.trigram, g.c::float8 / n.n AS share
       FROM (SELECT tg.trigram, count(*) AS c FROM picks, unnest(show_trgm(picks.t)) AS tg(trigram) GROUP BY tg.trigram) AS g, n
      WHERE g.c::float8 / n.n > $3`,
    [graph, rows, COMMON_SHARE / 4],
  );
  return new Map(found.map((r) => [r.trigram, Number(r.share)]));
}

/** Words as `pg_trgm` cuts them (runs of letters and digits), lower-cased, with where they sit in the query. */
function words(query: string): { word: string; start: number; end: number }[] {
  return [...query.matchAll(/[\p{L}\p{N}]+/gu)].map((m) => ({ word: m[0].toLowerCase(), start: m.index, end: m.index + m[0].length }));
}

const trigramsOf = (text: string): string[] => Array.from({ length: Math.max(0, text.length - 2) }, (_, i) => text.slice(i, i + 3));

/**
 * A candidate row found by the index is fetched and tested again (the recheck): this many times what one posting
 * of a trigram costs to read. Measured at 200k entities: 200,000 rechecks took 1.4 s, where reading 600,000
 * postings took well under 0.1 s.
 */
const RECHECK_WEIGHT = 50;

/**
 * What asking the index with these trigrams costs, relative: the posting lists read (each trigram's share of the
 * rows; one unseen in the sample is rare) and the candidates rechecked, at most the share of its rarest trigram.
 */
function cost(trigrams: readonly string[], shares: TrigramShares): number {
  if (trigrams.length === 0) return Number.POSITIVE_INFINITY; // no trigram: the index cannot narrow anything
  let read = 0;
  let candidates = 1;
  for (const t of trigrams) {
    const share = shares.get(t) ?? 0;
    read += share;
    candidates = Math.min(candidates, share);
  }
  return read + RECHECK_WEIGHT * candidates;
}

/**
 * The `ILIKE` pattern for the index: the whole query's (`%query%`, escaped) when none of its trigrams
 * is common or nothing is known, else `%word%` for the word of the query that costs least to ask with
 * (`cost`), if it costs less than the whole query: a rare word, not a common one that every row holds.
 */
export function indexPattern(query: string, shares: TrigramShares | undefined): string {
  const whole = containsPattern(query);
  if (!shares || shares.size === 0) return whole;
  const parts = words(query);
  // The trigrams pg_trgm takes from `%query%`: each word padded where a separator (not the wildcard) borders it, by two
  // spaces before and one after, as pg_trgm pads words (so `type-7` gives `  7`, which narrows the candidates).
  const wholeTrigrams = parts.flatMap(({ word, start, end }) =>
    trigramsOf(`${start > 0 ? '  ' : ''}${word}${end < query.length ? ' ' : ''}`),
  );
  if (wholeTrigrams.every((t) => (shares.get(t) ?? 0) <= COMMON_SHARE)) return whole;
  let best: { text: string; cost: number } | undefined;
  for (const { word, start, end } of parts) {
    if (word.length < 3) continue;
    const c = cost(trigramsOf(word), shares);
    if (!best || c < best.cost || (c === best.cost && end - start > best.text.length)) best = { text: query.slice(start, end), cost: c };
  }
  // The word as the query has it (ILIKE folds it as it folds the query); a word has no `%`, `_` or `\`.
  return best && best.cost < cost(wholeTrigrams, shares) ? containsPattern(best.text) : whole;
}

export interface TrigramSampler {
  /**
   * The graph's common trigrams as last sampled, or undefined before the first sample lands. Starts a sample in the
   * background when there is none or it is older than `maxAgeMs`; never waits on the database, so a search costs
   * no more than before when the database is slow or down (a failed sample is tried again by the next search).
   */
  current(): TrigramShares | undefined;
}

export function createTrigramSampler(sample: () => Promise<TrigramShares>, maxAgeMs = 5 * 60_000): TrigramSampler {
  let last: { shares: TrigramShares; at: number } | undefined;
  let pending: Promise<void> | undefined;
  const refresh = () => {
    if (pending) return;
    pending = sample().then(
      (shares) => {
        last = { shares, at: Date.now() };
        pending = undefined;
      },
      () => {
        pending = undefined;
      },
    );
  };
  return {
    current() {
      if (!last || Date.now() - last.at > maxAgeMs) refresh();
      return last?.shares;
    },
  };
}
