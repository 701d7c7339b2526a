// @module-tag slow
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { createTrigramSampler, indexPattern, type TrigramShares } from '../../src/store/postgres/searchPattern.js';
import { containsPattern } from '../../src/store/postgres/text.js';

/** Shares as `sampleTrigrams` returns them: the trigrams of `common` words in every sampled row. */
function sharesOf(common: string[], share = 1): TrigramShares {
  const shares = new Map<string, number>();
  for (const word of common) {
    const padded = `  ${word} `;
    for (let i = 0; i + 3 <= padded.length; i++) shares.set(padded.slice(i, i + 3), share);
    for (let i = 0; i + 3 <= word.length; i++) shares.set(word.slice(i, i + 3), share);
  }
  return shares;
}

describe('indexPattern: what the trigram index is asked with', () => {
  it('asks with the whole query while nothing is sampled, or when no trigram of it is common', () => {
    expect(indexPattern('Observation 543210-a', undefined)).toBe(containsPattern('Observation 543210-a'));
    expect(indexPattern('Observation 543210-a', new Map())).toBe(containsPattern('Observation 543210-a'));
    expect(indexPattern('zebra 42', sharesOf(['observation']))).toBe(containsPattern('zebra 42'));
  });

  it('asks with the rarest word, as the query spells it, when a common trigram would make the scan read the whole index', () => {
    expect(indexPattern('Observation 543210-a', sharesOf(['observation']))).toBe('%543210%');
    expect(indexPattern('met on day 117', sharesOf(['met', 'on', 'day']))).toBe('%117%');
    expect(indexPattern('ER İSTANBUL', sharesOf(['er']))).toBe('%İSTANBUL%');
  });

  it('with only common words, asks with the one whose trigrams cost least; words under 3 characters are never chosen', () => {
    // `observation` alone reads fewer posting lists than the whole query's (which adds ` of`, `of `, …).
    expect(indexPattern('observation of', sharesOf(['observation', 'of']))).toBe('%observation%');
    expect(indexPattern('a b', sharesOf(['a', 'b']))).toBe(containsPattern('a b'));
  });

  it('keeps the whole query when its only long word is common: a short word (`7` in `type-7`) still narrows the candidates', () => {
    // pg_trgm gives `%type-7%` the trigram `  7`, in about 1 row in 9 here; `%type%` alone would make every row a candidate.
    const shares = new Map([...sharesOf(['type']), ['  7', 0.11]]);
    expect(indexPattern('type-7', shares)).toBe(containsPattern('type-7'));
    // A rare long word still wins over a common one.
    expect(indexPattern('type-7 zebra', shares)).toBe('%zebra%');
  });

  it('never asks with a word that would need escaping: %, _ and \\ stay in the whole query only', () => {
    const q = 'observation 100%_done\\x';
    const pattern = indexPattern(q, sharesOf(['observation']));
    // The chosen word is letters and digits only; the exact ILIKE of the whole query still decides the match.
    expect(pattern).toMatch(/^%[\p{L}\p{N}]+%$/u);
    expect(q.toLowerCase()).toContain(pattern.slice(1, -1).toLowerCase());
  });
});

describe('createTrigramSampler', () => {
  it('samples in the background, never waits, refreshes when old, and tries again after a failure', async () => {
    // The sampler's clock is Date.now: faked, and moved past maxAgeMs by hand. A sample settles in the next turn.
    vi.useFakeTimers({ toFake: ['Date'] });
    onTestFinished(() => {
      vi.useRealTimers();
    });
    const landed = () => new Promise((r) => setImmediate(r));
    let calls = 0;
    let fail = true;
    const sampler = createTrigramSampler(async () => {
      calls++;
      if (fail) throw new Error('database down');
      return sharesOf(['x1y']);
    }, 50);
    expect(sampler.current()).toBeUndefined();
    await landed();
    expect(calls).toBe(1);
    fail = false;
    expect(sampler.current()).toBeUndefined(); // the failed sample is tried again
    await landed();
    expect(sampler.current()?.size).toBeGreaterThan(0);
    expect(calls).toBe(2);
    sampler.current();
    expect(calls).toBe(2); // fresh: no new sample
    vi.advanceTimersByTime(60);
    sampler.current();
    await landed();
    expect(calls).toBe(3); // older than maxAgeMs: sampled again
  });
});
