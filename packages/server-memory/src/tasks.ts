/**
 * The process's tasks extension (`io.modelcontextprotocol/tasks`): `read_graph` and `search_nodes` run as tasks
 * for a request that declares it (`task: 'optional'`), every other request is answered as before.
 *
 * - `--storage postgres`: tasks live in memory's database (`memory_tasks`, on the graph's pool), so any replica
 *   answers `tasks/get` for a task another one started. A task belongs to the caller's access token (its subject,
 *   else its client); without a token, to the graph: every replica on that graph agrees on that owner, as they
 *   agree on the graph itself, which such a caller may read whole anyway (the task id, 128 random bits, is the secret).
 * - the file store: tasks live in this process (`createMemoryTaskStore`), lost when it stops; without a token a task
 *   belongs to this process's anonymous owner.
 *
 * A task is kept one hour from its creation (protocol-core's default ttl).
 */
import type { Logger } from '@mcpkit/protocol-core';
import { createMemoryTaskStore, type TaskStore, TasksExtension } from '@mcpkit/protocol-core/tasks';

export interface MemoryTasksOptions {
  /** PostgreSQL: the task table on the graph's connections, and the graph (the owner of tasks started without a token). */
  shared?: { store: TaskStore; graph: string };
  logger?: Logger;
  /** Epoch milliseconds now (task times, expiry). Default `Date.now`; tests drive it. */
  now?: () => number;
}

export function memoryTasks({ shared, logger, now }: MemoryTasksOptions = {}): TasksExtension {
  const options = { ...(logger ? { logger } : {}), ...(now ? { now } : {}) };
  if (!shared) return new TasksExtension(createMemoryTaskStore(now ? { now } : {}), options);
  return new TasksExtension(shared.store, { ...options, anonymousOwner: `anonymous:graph:${shared.graph}` });
}
