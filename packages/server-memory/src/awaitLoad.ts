/**
 * Tool calls that arrive while the graph is still loading (the CLI loads it in the background, so
 * that `initialize` and `tools/list` are answered at once) wait for it here, before their handler
 * runs: with `notifications/progress` (bytes of the memory file read, of its size) when the call
 * carries a `progressToken`, and no longer than the client wants: `notifications/cancelled` ends the
 * wait (and the call), while the load goes on for the other calls.
 */
import { type AnyToolDefinition, createProgressReporter, type RequestContext, ToolError } from '@mcpkit/protocol-core';
import type { GraphStore } from './store/types.js';

const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

/** Waits until `store` is loaded, reporting progress to the request's client and stopping when it cancels. */
async function awaitLoad(store: GraphStore, extra: RequestContext): Promise<void> {
  if (!store.ready) return;
  const progress = createProgressReporter(extra, { intervalMs: 250 });
  try {
    await store.ready({
      signal: extra.mcpReq.signal,
      ...(progress.active
        ? {
            onProgress: ({ loaded, total }) =>
              progress.update(loaded, total, () => `loading the knowledge graph: ${mib(loaded)} of ${mib(total)} MiB`),
          }
        : {}),
    });
  } catch (error) {
    // The client has gone on without an answer (the SDK sends none for a cancelled request).
    if (extra.mcpReq.signal.aborted) throw new ToolError('Cancelled while the knowledge graph was loading.');
    throw error;
  } finally {
    progress.end();
  }
}

/** `tool`, whose handler runs once the store is loaded (`awaitLoad`). */
export function afterLoad<Ctx extends { store: GraphStore }>(tool: AnyToolDefinition<Ctx>): AnyToolDefinition<Ctx> {
  return {
    ...tool,
    handler: async (args, ctx, extra) => {
      await awaitLoad(ctx.store, extra);
      return tool.handler(args, ctx, extra);
    },
  };
}
