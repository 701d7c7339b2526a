export { isModernEra } from './era.js';
export { serveTaskRequests, TASKS_CAPABILITY } from './handlers.js';
export { type ClaimedRequestHandler, interceptRequests } from './intercept.js';
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
  type QueuedInput,
  type Task,
  TaskNotFoundError,
  type TaskStatus,
  type TaskStore,
  type TaskStoreOptions,
} from './store.js';
