/** The library entry: the server factory, the app the CLI serves, the chain stores and the history. */

export { createSequentialThinkingApp, type SequentialThinkingAppOptions } from './app.js';
export { createMemoryChains, type MemoryChainOptions } from './chains/memoryChains.js';
export { ANONYMOUS_OWNER, requestOwner } from './chains/owner.js';
export { type ChainLimits, type ChainState, type ChainStore, DEFAULT_CHAIN_LIMITS, UnknownChainError } from './chains/types.js';
export {
  createThoughtHistory,
  DEFAULT_LIMITS,
  type HistoryLimits,
  type HistorySnapshot,
  type ThoughtHistory,
  type ThoughtRecord,
  thoughtBytes,
} from './history.js';
export { createSequentialThinkingServer, type SequentialThinkingServerOptions } from './instance.js';
export { HISTORY_URI } from './resources/history.js';
export { VERSION } from './version.js';
