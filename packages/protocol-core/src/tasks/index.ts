/**
 * `@mcpkit/protocol-core/tasks-2025`: the 2025-11-25 tasks layer (`tasks/get`, `tasks/result`, `tasks/list`,
 * `tasks/cancel`, task-augmented `tools/call`) and its store, for servers with 2025 task tools (today
 * server-everything). Not the 2026 tasks extension.
 *
 * Any new export added here becomes public API. Use named exports, not wildcards.
 */
export { TASKS_CAPABILITY } from './handlers.js';

export {
  createTaskLayer,
  type RunningTask,
  type TaskLayer,
  type TaskLayerOptions,
  type TaskToolDefinition,
  taskRequiredText,
} from './layer.js';
export {
  createTaskStore,
  isTerminal,
  type Task,
  type TaskStatus,
  type TaskStore,
  type TaskStoreOptions,
} from './store.js';
