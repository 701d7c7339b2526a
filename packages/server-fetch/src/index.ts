#!/usr/bin/env node
import { runCli } from '@mcpkit/protocol-core';
import { createFetchApp } from './app.js';
import { options } from './config.js';
import { VERSION } from './server.js';

await runCli({
  bin: 'mcp-server-fetch',
  version: VERSION,
  description: 'Fetch MCP server: web pages to clean Markdown, safe by default (a TypeScript drop-in for mcp-server-fetch).',
  options,
  create: (config, logger) =>
    createFetchApp({
      ...(config.userAgent !== undefined ? { userAgent: config.userAgent } : {}),
      ignoreRobotsTxt: config.ignoreRobotsTxt,
      ...(config.proxyUrl !== undefined ? { proxyUrl: config.proxyUrl } : {}),
      allowPrivateNetwork: config.allowPrivateNetwork,
      allowHosts: config.allowHost,
      timeoutMs: config.timeout,
      maxBytes: config.maxBytes,
      maxRedirects: config.maxRedirects,
      logger,
    }),
  epilog: `Destinations on loopback, private, link-local, CGNAT and cloud metadata addresses are refused unless
allowed with --allow-host or --allow-private-network.`,
});
