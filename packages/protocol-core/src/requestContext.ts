/**
 * What a tool, prompt or resource handler gets besides its arguments: the SDK's own `ServerContext` for the request
 * (`mcpReq.signal`, `mcpReq.send`, `mcpReq.notify`, `mcpReq._meta`, `mcpReq.envelope`, `sessionId`,
 * `http.authInfo`, …), plus `task` when the call runs as a task of the tasks extension.
 */
import type { ServerContext } from '@modelcontextprotocol/server';
import type { TaskContext } from './tasksExtension/types.js';

export type RequestContext = ServerContext & {
  /** Set when the call runs as a task (the tasks extension): its id, cancellation signal, progress and input requests. */
  task?: TaskContext;
};
