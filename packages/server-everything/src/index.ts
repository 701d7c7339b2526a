#!/usr/bin/env node
import { createDownloader } from '@mcpkit/net';
import { runCli } from '@mcpkit/protocol-core';
import { options } from './config.js';
import { createEverythingServer, VERSION } from './server.js';

await runCli({
  bin: 'mcp-server-everything',
  version: VERSION,
  description:
    'Everything MCP server: every protocol feature, for testing MCP clients. A drop-in for @modelcontextprotocol/server-everything (legacy and current profiles) plus a conformance profile.',
  options,
  // The reference's `mcp-server-everything [stdio|sse|streamableHttp]` keeps working.
  transportAliases: { stdio: 'stdio', sse: 'sse', streamableHttp: 'http' },
  create: (config, logger) => {
    // One guarded downloader per process (its connection pools outlive sessions): `zip` and
    // `gzip-file-as-resource` fetch http(s) URLs only through the SSRF policy. undici loads on first use.
    const downloader = createDownloader({
      name: 'mcp-server-everything',
      allowPrivateNetwork: config.allowPrivateNetwork,
      allowHosts: config.allowHost,
    });
    return {
      createServer: () =>
        createEverythingServer({
          profile: config.profile,
          showEnvSecrets: config.showEnvSecrets,
          logger,
          download: downloader.download,
          gzipMaxFetchSize: config.gzipMaxFetchSize,
          gzipMaxFetchTimeMs: config.gzipMaxFetchTime,
          gzipAllowedDomains: config.gzipAllowedDomains.flat(),
        }),
      close: () => downloader.close(),
    };
  },
});
