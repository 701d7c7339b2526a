#!/usr/bin/env node
import { createListenBus, runCli } from '@mcpkit/protocol-core';
import { createMemoryTaskStore, TasksExtension } from '@mcpkit/protocol-core/tasks';
import { options } from './config.js';
import { loadProfile } from './profiles/load.js';
import { EVERYTHING_SCOPES } from './scopes.js';
import { randomStateKeyOnce } from './shared/clientInput.js';
import { lazyDownloader } from './shared/lazyDownloader.js';
import { createSpentStates } from './shared/spentStates.js';
import { VERSION } from './version.js';

await runCli({
  bin: 'mcp-server-everything',
  version: VERSION,
  description:
    'Everything MCP server: every protocol feature, for testing MCP clients. A drop-in for @modelcontextprotocol/server-everything (legacy and current profiles) plus a conformance profile.',
  options,
  // The reference's `mcp-server-everything [stdio|sse|streamableHttp]` keeps working.
  transportAliases: { stdio: 'stdio', sse: 'sse', streamableHttp: 'http' },
  create: async (config, logger) => {
    // Only the chosen profile is loaded: a start evaluates one profile, not three.
    const createProfileServer = await loadProfile(config.profile);
    // One guarded downloader per process (its connection pools outlive sessions): `zip` and
    // `gzip-file-as-resource` fetch http(s) URLs only through the SSRF policy. It loads on the first download.
    const downloader = lazyDownloader({
      name: 'mcp-server-everything',
      allowPrivateNetwork: config.allowPrivateNetwork,
      allowHosts: config.allowHost,
    });
    // One key per process: a 2026-07-28 retry reaches a fresh server, which must verify what another one sealed.
    // Made when the first state is sealed, so a start loads no crypto.
    const requestStateKey = config.requestStateKey ?? randomStateKeyOnce();
    // One ledger of answered states per process, for the same reason: a retry is accepted once, by any server.
    const spentRequestStates = createSpentStates();
    // One listen bus per process: 2026-07-28 `subscriptions/listen` streams over HTTP hear what any server announces.
    const listen = createListenBus({ logger });
    // One tasks extension per process: a task outlives the request (and its server) that started it, and any
    // later request's server answers its tasks/get.
    const tasks = new TasksExtension(createMemoryTaskStore(), { logger });
    createProfileServer.declareTasks?.(tasks);
    return {
      bus: listen.bus,
      preflight: (message) => tasks.preflight(message),
      createServer: (context) =>
        createProfileServer(
          {
            showEnvSecrets: config.showEnvSecrets,
            logger,
            download: downloader.download,
            gzipMaxFetchSize: config.gzipMaxFetchSize,
            gzipMaxFetchTimeMs: config.gzipMaxFetchTime,
            gzipAllowedDomains: config.gzipAllowedDomains.flat(),
            requestStateKey,
            spentRequestStates,
            listChanges: listen.notify,
            tasks,
          },
          context,
        ),
      close: () => {
        tasks.close();
        return downloader.close();
      },
      scopes: EVERYTHING_SCOPES,
    };
  },
});
