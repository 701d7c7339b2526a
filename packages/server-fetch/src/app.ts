/**
 * The CLI's app: one fetcher and one tasks extension per process (in-process memory store), a fetch server per
 * serving unit on both. A task outlives the 2026-07-28 request (and the server) that started it: any later
 * request's server answers its `tasks/get`; `close` stops the tasks still running, then the fetcher.
 */
import type { Logger, ServerApp } from '@mcpkit/protocol-core';
import { createMemoryTaskStore, TasksExtension } from '@mcpkit/protocol-core/tasks';
import { createFetcher, type FetcherOptions } from './fetcher.js';
import { FETCH_SCOPES } from './scopes.js';
import { createFetchServer } from './server.js';

export function createFetchApp(options: FetcherOptions & { logger: Logger }): ServerApp {
  const { logger } = options;
  const fetcher = createFetcher(options);
  const tasks = new TasksExtension(createMemoryTaskStore(), { logger });
  return {
    createServer: (context) => createFetchServer({ fetcher, logger, tasks }, context),
    preflight: (message) => tasks.preflight(message),
    close: () => {
      tasks.close();
      return fetcher.close();
    },
    scopes: FETCH_SCOPES,
  };
}
