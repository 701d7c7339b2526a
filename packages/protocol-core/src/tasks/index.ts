
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
