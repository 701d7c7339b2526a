#!/usr/bin/env node
import { runCli } from '@mcpkit/protocol-core';
import { createGitApp } from './app.js';
import { options, verbosityToLogLevel } from './config.js';
import { createCacheBudget } from './engine/cacheBudget.js';
import { fixedRoots } from './engine/roots.js';
import { createGitContext } from './gitContext.js';
import { createEnginePreload } from './preload.js';
import { type ReadAheadEngine, readAhead } from './readAhead.js';
import { createRepoCache, VERSION } from './server.js';
import { resolveStartupRepositories } from './startup.js';

await runCli(
  {
    bin: 'mcp-server-git',
    version: VERSION,
    description:
      'Git MCP server on isomorphic-git (no git binary needed): status, diffs, commits, branches, history and more, confined to the repositories you allow.',
    options,
    create: async (config, logger) => {
      // Checked once, at start: a missing path or a non-repository exits 2 with one line.
      const repositories = await resolveStartupRepositories(config.repository, (message) => logger.warn(message));
      for (const repo of repositories) logger.info(`Using repository at ${repo}`);
      if (repositories.length === 0) logger.info("No --repository given: the client's MCP roots decide where the tools may work");
      const remote = config.allowRemote
        ? (await import('./engine/remote/http.js')).createRemoteAccess(config, process.env, logger)
        : undefined;
      // One memory budget (--cache-size) for what every session keeps between calls: trees, blobs, patches, …
      const budget = createCacheBudget({ maxBytes: config.cacheSize });
      const locks = { indexTimeoutMs: config.lockTimeout, refTimeoutMs: config.lockTimeout };
      const repoCache = createRepoCache(undefined, undefined, locks, budget);
      const objectLimits = {
        maxObjectSize: config.maxObjectSize,
        maxDeltaDepth: config.maxDeltaDepth,
        maxInflateBytes: config.maxInflateBytes,
      };
      const serverOptions = { repositories, allowInit: config.allowInit, remote, repoCache, logger, objectLimits };
      // The engine is imported right after the first session's opening is answered, not on its first call, and the
      // fixed repositories are read ahead with the CLI's caches (./preload.ts, ./readAhead.ts).
      const context = createGitContext(serverOptions, fixedRoots(repositories));
      const readAheadAll = (engine: ReadAheadEngine) => readAhead(engine, context, logger);
      const preload = config.noWarmup ? undefined : createEnginePreload(logger, repositories.length > 0 ? { readAhead: readAheadAll } : {});
      if (!preload) logger.debug('warm-up: off (--no-warmup)');
      return createGitApp(serverOptions, {
        ...(preload ? { sessionOpened: () => preload.sessionOpened() } : {}),
        close: () => Promise.all([repoCache.close(), remote?.close()]).then(() => undefined),
      });
    },
  },
  { argv: verbosityToLogLevel(process.argv.slice(2)) },
);
