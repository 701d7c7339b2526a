// `@mcpkit/protocol-core/tasks`: the tasks extension (SEP-2663). Any new export here becomes public API.

export type { TaskWork } from './execution.js';
export {
  type PreflightError,
  type StartOptions,
  TasksExtension,
  type TasksExtensionOptions,
} from './extension.js';
export { createMemoryTaskStore, type MemoryTaskStoreOptions } from './memoryStore.js';
export {
  isExpired,
  isTerminalStatus,
  MISSING_REQUIRED_CLIENT_CAPABILITY,
  TASKS_EXTENSION_ID,
  type TaskChange,
  type TaskContext,
  type TaskError,
  type TaskInputRequest,
  type TaskRecord,
  type TaskStatus,
  type TaskStore,
  type TaskSupport,
} from './types.js';
export { createTaskResult, detailedTask } from './wire.js';
