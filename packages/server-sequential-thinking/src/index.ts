#!/usr/bin/env node
import { runCli } from '@mcpkit/protocol-core';
import { options, resolveLimits } from './config.js';
import { THINKING_SCOPES } from './scopes.js';
import { createSequentialThinkingServer, VERSION } from './server.js';

await runCli({
  bin: 'mcp-server-sequential-thinking',
  version: VERSION,
  description: 'Sequential thinking MCP server: a tool for dynamic, reflective problem-solving through numbered thoughts.',
  options,
  create: (config, logger) => {
    // Checked once, at start: a bad combination exits 2 before any session exists.
    const limits = resolveLimits(config);
    return {
      createServer: () =>
        createSequentialThinkingServer({
          ...limits,
          logThoughts: !config.disableThoughtLogging,
          color: Boolean(process.stderr.isTTY) && !process.env.NO_COLOR,
          logger,
        }),
      scopes: THINKING_SCOPES,
    };
  },
});
