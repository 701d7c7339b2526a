/**
 * The server as the runner serves it: which history a serving unit gets. A 2026-07-28 request over HTTP (no session,
 * any replica) gets the chained tool on the app's `ChainStore`; everything else (a 2025 session, a stdio connection
 * in either era, a `--stateless` 2025 request) gets an instance with its own history and the reference's tool,
 * exactly as before.
 */
import { serverSkills } from '@mcpkit/protocol-core/skills';
import type { McpRequestContext, McpServer } from '@modelcontextprotocol/server';
import type { ChainStore } from './chains/types.js';
import { createSequentialThinkingServer, type SequentialThinkingServerOptions } from './instance.js';

export interface SequentialThinkingAppOptions extends Omit<SequentialThinkingServerOptions, 'chains'> {
  /** Where 2026 requests over HTTP keep their thought chains (`createMemoryChains`, or PostgreSQL). */
  chains: ChainStore;
}

export interface SequentialThinkingApp {
  createServer(context?: McpRequestContext): McpServer;
  /** Closes the chain store. */
  close(): Promise<void>;
}

/** A 2026-07-28 request that came over HTTP: the SDK built its instance for this one request. */
const isModernHttp = (context: McpRequestContext | undefined): boolean => context?.era === 'modern' && context.requestInfo !== undefined;

/** The skills this package ships (`skills/`, next to `dist/` and `src/`), served to 2026-07-28 clients. */
const SKILLS = serverSkills(new URL('../skills/', import.meta.url), { prefix: 'sequential-thinking' });

export function createSequentialThinkingApp({ chains, ...options }: SequentialThinkingAppOptions): SequentialThinkingApp {
  return {
    createServer: (context) =>
      SKILLS.attach(createSequentialThinkingServer(isModernHttp(context) ? { ...options, chains } : options), context),
    close: () => chains.close(),
  };
}
