import { errorMessage, type Logger, type RequestContext, sendLog } from '@mcpkit/protocol-core';
import { ListRootsResultSchema } from '@modelcontextprotocol/core';
import type { McpServer, Root } from '@modelcontextprotocol/server';

/** This session's view of the client's roots (the reference's `syncRoots`, without its process-wide map). */
export interface RootsCache {
  /**
   * The client's roots: requested once (installing a `notifications/roots/list_changed` handler that
   * requests them again), then cached. Undefined when the client has no `roots` capability or the request
   * failed. With `extra`, the request goes out as part of that tool call (on its HTTP response stream).
   */
  sync(extra?: RequestContext): Promise<Root[] | undefined>;
}

export function createRootsCache(server: McpServer, logger: Logger): RootsCache {
  let roots: Root[] | undefined;
  const sessionId = () => server.server.transport?.sessionId;

  const request = async (extra?: RequestContext) => {
    try {
      const response = extra ? await extra.mcpReq.send({ method: 'roots/list' }, ListRootsResultSchema) : await server.server.listRoots();
      roots = response.roots;
      await sendLog(server, 'info', `Roots updated: ${roots.length} root(s) received from client`, 'everything-server', sessionId());
    } catch (error) {
      logger.warn(`Failed to request roots from client ${sessionId()}: ${errorMessage(error)}`);
    }
  };

  return {
    async sync(extra) {
      if (server.server.getClientCapabilities()?.roots === undefined) return undefined;
      if (roots === undefined) {
        server.server.setNotificationHandler('notifications/roots/list_changed', () => request());
        await request(extra);
      }
      return roots;
    },
  };
}
