import { createMcpServer, type Logger, registerResources, registerTools, silentLogger } from '@mcpkit/protocol-core';
import type { McpServer } from '@modelcontextprotocol/server';
import type { ChainStore } from './chains/types.js';
import { DEFAULT_CHAIN_LIMITS } from './chains/types.js';
import { createThoughtHistory, DEFAULT_LIMITS } from './history.js';
import { resources } from './resources/history.js';
import { type ChainContext, chainedThinking } from './tools/chainedThinking.js';
import { type ThinkingContext, tools } from './tools/sequentialThinking.js';
import { VERSION } from './version.js';

export interface SequentialThinkingServerOptions {
  /** Thoughts kept for this server's session; the oldest are dropped beyond it. Default 1000. */
  maxHistory?: number;
  /**
   * UTF-8 bytes of thoughts (`thought` plus `branchId`) kept for this session; the oldest are dropped
   * beyond it. Default 8 MiB. Must be at least `maxThoughtBytes`.
   */
  maxHistoryBytes?: number;
  /**
   * Largest thought accepted, in the same bytes; a larger one gets an `isError` result and is not
   * recorded. Default 128 KiB, or `maxHistoryBytes` if that is smaller.
   */
  maxThoughtBytes?: number;
  /** Draw each thought as a box on stderr. Default false here; the CLI turns it on. */
  logThoughts?: boolean;
  /** Colour the box (the CLI does when stderr is a terminal). */
  color?: boolean;
  /** Where the boxes go; stderr by default. */
  writeThought?: (box: string) => void;
  logger?: Logger;
  /**
   * Serve the 2026 tool, which records into thought chains of this store (`thoughtChain` handles), instead of this
   * instance's own history. For one 2026-07-28 request over HTTP (see `createSequentialThinkingApp`).
   */
  chains?: ChainStore;
  /** How long the store keeps an unused chain, for the tool's error text. Default 1 hour. */
  chainTtlMs?: number;
}

/**
 * A sequential-thinking server for one serving unit: its history lives in this instance, so no two
 * units ever see each other's thoughts. The runner calls this once per unit, which depends on the
 * client's protocol era and transport (see "Whose history" in the README): a 2025 session over HTTP,
 * one stdio connection (the process) in either era, one request for a 2026-07-28 client over HTTP.
 * That last unit has no session to keep a history in: with `chains`, its thought goes to the thought
 * chain its `thoughtChain` names (`createSequentialThinkingApp` passes them for exactly those units).
 */
export function createSequentialThinkingServer(options: SequentialThinkingServerOptions = {}): McpServer {
  const {
    maxHistory = DEFAULT_LIMITS.maxHistory,
    maxHistoryBytes = DEFAULT_LIMITS.maxHistoryBytes,
    // A budget below the default thought limit lowers the limit with it.
    maxThoughtBytes = Math.min(DEFAULT_LIMITS.maxThoughtBytes, maxHistoryBytes),
    logThoughts = false,
    color = false,
    logger = silentLogger,
  } = options;
  // An accepted thought must fit the budget, or it would be dropped as soon as it was recorded.
  if (maxThoughtBytes > maxHistoryBytes) {
    throw new RangeError(`maxThoughtBytes (${maxThoughtBytes}) must not exceed maxHistoryBytes (${maxHistoryBytes})`);
  }
  const write = options.writeThought ?? ((box: string) => process.stderr.write(`${box}\n`));
  // protocol-core's default cache hints are this server's: the tool and resource lists (and `server/discover`)
  // never change while the process runs, so 2026-07-28 clients may cache them; `resources/read` of the history,
  // which changes with every thought, gets none (the SDK's `ttlMs: 0`, private).
  const server = createMcpServer({ name: 'sequential-thinking-server', version: VERSION, title: 'Sequential Thinking', logger });
  const ctx: ThinkingContext = {
    history: createThoughtHistory({ maxHistory, maxHistoryBytes }),
    maxThoughtBytes,
    // The box drawing (and its Unicode width tables) loads on the first thought, not at start-up.
    logThought: logThoughts ? async (record) => write((await import('./format.js')).formatThought(record, color)) : async () => {},
  };
  if (options.chains) {
    const chained: ChainContext = {
      chains: options.chains,
      chainTtlMs: options.chainTtlMs ?? DEFAULT_CHAIN_LIMITS.ttlMs,
      maxThoughtBytes,
      logThought: ctx.logThought,
    };
    registerTools(server, chained, [chainedThinking], { logger });
  } else {
    registerTools(server, ctx, tools, { logger });
  }
  // With chains, the instance's own history stays empty: the resource reads empty, as before (it names no chain).
  registerResources(server, ctx, resources);
  return server;
}
