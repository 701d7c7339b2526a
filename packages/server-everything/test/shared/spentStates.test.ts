import { describe, expect, it } from 'vitest';
import { createSpentStates } from '../../src/shared/spentStates.js';

describe('spent requestState ledger', () => {
  it('accepts a nonce once and forgets it when its state would have expired', () => {
    let now = 1_000;
    const spent = createSpentStates({ now: () => now });
    expect(spent.spend('a', 2_000)).toBe(true);
    expect(spent.spend('a', 2_000)).toBe(false);
    now = 2_000;
    expect(spent.spend('b', 3_000)).toBe(true);
    expect(spent.size).toBe(1);
  });

  it('keeps at most maxEntries nonces, forgetting the oldest first', () => {
    const spent = createSpentStates({ maxEntries: 3, now: () => 0 });
    for (const nonce of ['a', 'b', 'c', 'd']) expect(spent.spend(nonce, 10)).toBe(true);
    expect(spent.size).toBe(3);
    expect(spent.spend('d', 10)).toBe(false);
    expect(spent.spend('c', 10)).toBe(false);
  });
});
