#!/usr/bin/env node
import { homedir } from 'node:os';
import { runCli } from '@mcpkit/protocol-core';
import { options, verbosityToLogLevel } from './config.js';
import { createPatchCache } from './engine/diff/patchCache.js';
import { fixedRoots } from './engine/roots.js';
import { resolveStartupRepositories } from './engine/startup.js';
import { GIT_SCOPES } from './scopes.js';
import { createGitServer, createRepoCache, VERSION } from './server.js';
import { createWarmup } from './warmup.js';

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
      const repoCache = createRepoCache(undefined, undefined, { indexTimeoutMs: config.lockTimeout, refTimeoutMs: config.lockTimeout });
      // Reads ahead once the client has connected and gone quiet (./warmup.ts), through the cache the sessions share.
      const objectLimits = {
        maxObjectSize: config.maxObjectSize,
        maxDeltaDepth: config.maxDeltaDepth,
        maxInflateBytes: config.maxInflateBytes,
      };
      const serverOptions = { repositories, allowInit: config.allowInit, remote, repoCache, logger, objectLimits };
      const warmup = config.noWarmup
        ? undefined
        : createWarmup({
            ctx: {
              roots: fixedRoots(repositories),
              repoCache,
              remote: undefined,
              env: process.env,
              home: homedir(),
              logger,
              patchCache: createPatchCache(),
              objectLimits,
            },
            logger,
            createServer: () => createGitServer(serverOptions),
          });
      if (!warmup) logger.debug('warm-up: off (--no-warmup)');
      return {
        createServer: (context) => createGitServer({ ...serverOptions, activity: warmup }, context),
        close: () => {
          warmup?.stop();
          return Promise.all([repoCache.close(), remote?.close()]).then(() => undefined);
        },
        scopes: GIT_SCOPES,
      };
    },
  },
  { argv: verbosityToLogLevel(process.argv.slice(2)) },
);
