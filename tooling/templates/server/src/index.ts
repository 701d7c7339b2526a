#!/usr/bin/env node
import { runCli } from '@mcpkit/protocol-core';
import { options } from './config.js';
import { create$PASCAL$Server, VERSION } from './server.js';

await runCli({
  bin: 'mcp-server-$NAME$',
  version: VERSION,
  description: '$DESCRIPTION$',
  options,
  // Runs once per process: build what sessions share here (a store, a cache) and close it in `close`.
  create: (config, logger) => ({
    createServer: () => create$PASCAL$Server({ maxMessageLength: config.maxMessageLength, logger }),
  }),
});
