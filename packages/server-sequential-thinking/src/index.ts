#!/usr/bin/env node
import { runCli } from '@mcpkit/protocol-core';
import { options } from './config.js';
import { createSequentialThinkingServer, VERSION } from './server.js';

await runCli({
  bin: 'mcp-server-sequential-thinking',
  version: VERSION,
  description: 'Sequential thinking MCP server: a tool for dynamic, reflective problem-solving through numbered thoughts.',
  options,
  create: (config, logger) => ({
    createServer: () =>
      createSequentialThinkingServer({
        maxHistory: config.maxHistory,
        logThoughts: !config.disableThoughtLogging,
        color: Boolean(process.stderr.isTTY) && !process.env.NO_COLOR,
        logger,
      }),
  }),
});
