#!/usr/bin/env node
import { runCli } from '@mcpkit/protocol-core';
import { options, verbosityToLogLevel } from './config.js';
import { resolveStartupRepositories } from './engine/startup.js';
import { GIT_SCOPES } from './scopes.js';
import { createGitServer, createRepoCache, VERSION } from './server.js';

await runCli(
  {
    bin: 'mcp-server-git',
    version: VERSION,
    description:
      'Git MCP server on isomorphic-git (no git binary needed): status, diffs, commits, branches, history and more, confined to the repositories you allow.',
    options,
    create: async (config, logger) => {
      // Checked once, at start: a missing path or a non-repository exits 2 with one line.
      const repositories = await resolveStartupRepositories(config.repository);
      for (const repo of repositories) logger.info(`Using repository at ${repo}`);
      if (repositories.length === 0) logger.info("No --repository given: the client's MCP roots decide where the tools may work");
      const remote = config.allowRemote
        ? (await import('./engine/remote/http.js')).createRemoteAccess(config, process.env, logger)
        : undefined;
      const repoCache = createRepoCache();
      return {
        createServer: () => createGitServer({ repositories, allowInit: config.allowInit, remote, repoCache, logger }),
        close: () => remote?.close(),
        scopes: GIT_SCOPES,
      };
    },
  },
  { argv: verbosityToLogLevel(process.argv.slice(2)) },
);
