/**
 * The `requestState`s a server has already accepted: a sealed state answers one round once. Each state carries a
 * random nonce; `spend` records it until the state would have expired anyway, so a retry sent again (a replay by
 * whoever saw it, or a client re-sending a round) is refused. The ledger is bounded: past `maxEntries` live nonces
 * the oldest is forgotten first (a state that old could be replayed once more; the README says so).
 */

export interface SpentStates {
  /** Records `nonce` as used until `forgetAtMs`; false when it was used already (a replay). */
  spend(nonce: string, forgetAtMs: number): boolean;
  /** How many nonces are remembered now. */
  readonly size: number;
}

export interface SpentStatesOptions {
  /** Live nonces kept at most (default 100 000: about 10 MB at the worst). */
  maxEntries?: number;
  /** The clock, in ms (tests drive it). */
  now?: () => number;
}

const DEFAULT_MAX_SPENT_STATES = 100_000;

export function createSpentStates(options: SpentStatesOptions = {}): SpentStates {
  const maxEntries = options.maxEntries ?? DEFAULT_MAX_SPENT_STATES;
  const now = options.now ?? Date.now;
  // Insertion order is expiry order (every state lives the same TTL), so expired nonces sit at the front.
  const spent = new Map<string, number>();

  const prune = () => {
    const at = now();
    for (const [nonce, forgetAt] of spent) {
      if (forgetAt > at && spent.size < maxEntries) break;
      spent.delete(nonce);
    }
  };

  return {
    spend(nonce, forgetAtMs) {
      prune();
      if (spent.has(nonce)) return false;
      spent.set(nonce, forgetAtMs);
      return true;
    },
    get size() {
      return spent.size;
    },
  };
}
