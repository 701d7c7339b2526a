/**
 * The memory server's tools and resources bound to the request's user (`--graph-per-user`): each call runs on
 * the graph of its access token's subject (`userGraphs.ts`), which replaces the context's `store`.
 */
import type { AnyToolDefinition, ResourceDefinition } from '@mcpkit/protocol-core';
import type { MemoryContext } from './context.js';
import type { GraphStore } from './store/types.js';
import type { UserGraphs } from './userGraphs.js';

/** `tool`, run on the calling user's graph. */
export function onUserGraph(tool: AnyToolDefinition<MemoryContext>, users: UserGraphs): AnyToolDefinition<MemoryContext> {
  return { ...tool, handler: (args, ctx, extra) => users.use(extra, async (store) => tool.handler(args, { ...ctx, store }, extra)) };
}

/** `resource`, read from the reading user's graph. */
export function resourceOnUserGraph(resource: ResourceDefinition<MemoryContext>, users: UserGraphs): ResourceDefinition<MemoryContext> {
  return {
    ...resource,
    read: (uri, params, ctx, extra) => users.use(extra, async (store) => resource.read(uri, params, { ...ctx, store }, extra)),
  };
}

/** Stands in for the store in a per-user server's shared context; the wrappers above always replace it. */
export const NO_SHARED_STORE: GraphStore = new Proxy({} as GraphStore, {
  get(_target, key) {
    throw new Error(`per-user memory server: the shared store was used (${String(key)}) instead of the user's graph`);
  },
});
