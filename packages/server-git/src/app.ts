/**
 * The CLI's app: one tasks extension per process (in-process memory store) and a git server per serving unit on
 * it. A task outlives the 2026-07-28 request (and the server) that started it: any later request's server answers
 * its `tasks/get`; `close` stops the tasks still running, then what the process shares (`close`).
 */
import { type Logger, type ServerApp, silentLogger } from '@mcpkit/protocol-core';
import { createMemoryTaskStore, TasksExtension } from '@mcpkit/protocol-core/tasks';
import { GIT_SCOPES } from './scopes.js';
import { createGitServer, type GitServerOptions } from './server.js';

export interface GitAppHooks {
  /** Told before each server is made (the engine's warm-up). */
  sessionOpened?(): void;
  /** Closes what the servers share (the repositories' cache, the network access). */
  close?(): Promise<void>;
}

export function createGitApp(options: Omit<GitServerOptions, 'tasks'> & { logger?: Logger }, hooks: GitAppHooks = {}): ServerApp {
  const tasks = new TasksExtension(createMemoryTaskStore(), { logger: options.logger ?? silentLogger });
  const serverOptions: GitServerOptions = { ...options, tasks };
  return {
    createServer: (context) => {
      hooks.sessionOpened?.();
      return createGitServer(serverOptions, context);
    },
    preflight: (message) => tasks.preflight(message),
    close: async () => {
      tasks.close();
      await hooks.close?.();
    },
    scopes: GIT_SCOPES,
  };
}
