#!/usr/bin/env node
import { ConfigError, runCli } from '@mcpkit/protocol-core';
import { createSequentialThinkingApp } from './app.js';
import { createMemoryChains } from './chains/memoryChains.js';
import type { ChainStore } from './chains/types.js';
import { options, resolveLimits } from './config.js';
import { THINKING_SCOPES } from './scopes.js';
import { VERSION } from './version.js';

await runCli({
  bin: 'mcp-server-sequential-thinking',
  version: VERSION,
  description: 'Sequential thinking MCP server: a tool for dynamic, reflective problem-solving through numbered thoughts.',
  options,
  create: async (config, logger) => {
    // Checked once, at start: a bad combination exits 2 before any session exists.
    const limits = resolveLimits(config);
    const chainLimits = { ...limits, ttlMs: config.chainTtl, maxChains: config.maxChains };
    let chains: ChainStore;
    if (config.storage === 'postgres') {
      if (!config.databaseUrl) {
        throw new ConfigError('--storage postgres needs --database-url or SEQUENTIAL_THINKING_DATABASE_URL', 'database-url');
      }
      // pg loads only for --storage postgres.
      const { openPostgresChains } = await import('./chains/postgresChains.js');
      chains = openPostgresChains({
        ...chainLimits,
        url: config.databaseUrl,
        poolSize: config.poolSize,
        timeoutMs: config.databaseTimeout,
        logger,
      });
    } else {
      if (config.databaseUrl) throw new ConfigError('--database-url needs --storage postgres', 'database-url');
      chains = createMemoryChains(chainLimits);
    }
    const app = createSequentialThinkingApp({
      ...limits,
      chains,
      chainTtlMs: config.chainTtl,
      logThoughts: !config.disableThoughtLogging,
      color: Boolean(process.stderr.isTTY) && !process.env.NO_COLOR,
      logger,
    });
    return { createServer: app.createServer, close: app.close, scopes: THINKING_SCOPES };
  },
});
