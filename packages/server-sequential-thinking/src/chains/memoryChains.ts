/**
 * Thought chains kept in this process (the default): one bounded `ThoughtHistory` per chain, a chain unused for
 * `ttlMs` gone, and at most `maxChains` of them (the least recently used goes first). Enough for one process; replicas
 * behind a load balancer share `postgresChains.ts` instead.
 */
import { createThoughtHistory, type HistoryLimits, type ThoughtHistory } from '../history.js';
import { type ChainLimits, type ChainStore, DEFAULT_CHAIN_LIMITS, mintHandle, UnknownChainError } from './types.js';

export interface MemoryChainOptions extends Partial<ChainLimits>, HistoryLimits {
  /** The clock, in ms (tests drive it). Default `Date.now`. */
  now?: () => number;
}

interface Chain {
  owner: string;
  history: ThoughtHistory;
  lastUsed: number;
}

export function createMemoryChains({
  maxHistory,
  maxHistoryBytes,
  ttlMs = DEFAULT_CHAIN_LIMITS.ttlMs,
  maxChains = DEFAULT_CHAIN_LIMITS.maxChains,
  now = Date.now,
}: MemoryChainOptions): ChainStore {
  // In order of last use (a used chain is moved to the end), so the expired and the least recently used are in front.
  const chains = new Map<string, Chain>();
  let closed = false;

  /** Drops the expired chains, oldest first: stops at the first live one, so the work is what expired. */
  const sweep = (at: number) => {
    for (const [handle, chain] of chains) {
      if (at - chain.lastUsed < ttlMs) break;
      chains.delete(handle);
    }
  };

  return {
    async append(owner, handle, record) {
      if (closed) throw new Error('the thought chain store is closed');
      const at = now();
      sweep(at);
      let chain: Chain | undefined;
      if (handle === undefined) {
        handle = mintHandle();
        chain = { owner, history: createThoughtHistory({ maxHistory, maxHistoryBytes }), lastUsed: at };
        while (chains.size >= maxChains) {
          const oldest = chains.keys().next();
          if (oldest.done) break;
          chains.delete(oldest.value);
        }
      } else {
        chain = chains.get(handle);
        // The sweep stops at the first live chain; a clock that went back could leave an expired one behind it.
        if (!chain || chain.owner !== owner || at - chain.lastUsed >= ttlMs) throw new UnknownChainError();
        chains.delete(handle);
      }
      chain.lastUsed = at;
      chains.set(handle, chain);
      chain.history.add(record);
      return { handle, length: chain.history.length, branches: chain.history.branchIds() };
    },
    async close() {
      closed = true;
      chains.clear();
    },
  };
}
