import { errorMessage, sendLog } from '@mcpkit/protocol-core';
import { ProtocolError } from '@modelcontextprotocol/server';
import type { LegacySession } from './session.js';

const LOGGER = 'everything-server';

/**
 * The reference logs the message of SDK 1.x's `McpError`, which starts `MCP error <code>: `; v2's `ProtocolError`
 * message has no prefix, so it is added back for an error the client answered with.
 */
function failureText(error: unknown): string {
  return error instanceof ProtocolError ? `MCP error ${error.code}: ${error.message}` : errorMessage(error);
}

/**
 * After `notifications/initialized`: asks a client that declared `roots` for its roots and logs what came
 * back, or logs that it has none, with the reference's messages (logger `everything-server`).
 */
export async function fetchInitialRoots(session: LegacySession, sessionId: string | undefined): Promise<void> {
  const { server, roots, closed } = session;
  if (!session.clientCapabilities().roots) {
    await sendLog(server, 'info', 'Client does not support MCP roots protocol', LOGGER, sessionId);
    return;
  }
  roots.supported = true;
  try {
    const response = await server.server.listRoots(undefined, { signal: closed });
    if (response && 'roots' in response) {
      roots.current = response.roots;
      await sendLog(server, 'info', `Initial roots received: ${roots.current.length} root(s) from client`, LOGGER, sessionId);
    } else {
      await sendLog(server, 'warning', 'Client returned no roots set', LOGGER, sessionId);
    }
  } catch (error) {
    if (closed.aborted) return;
    await sendLog(server, 'error', `Failed to request initial roots from client: ${failureText(error)}`, LOGGER, sessionId);
  }
}

/** On `notifications/roots/list_changed`: asks for the roots again and logs how many came back. */
export function onRootsListChanged(session: LegacySession, sessionId: () => string | undefined): void {
  const { server, roots, closed } = session;
  server.server.setNotificationHandler('notifications/roots/list_changed', async () => {
    try {
      const response = await server.server.listRoots(undefined, { signal: closed });
      if (response && 'roots' in response) {
        roots.current = response.roots;
        await sendLog(server, 'info', `Roots updated: ${roots.current.length} root(s) received from client`, LOGGER, sessionId());
      }
    } catch (error) {
      if (closed.aborted) return;
      await sendLog(server, 'error', `Failed to request roots from client: ${failureText(error)}`, LOGGER, sessionId());
    }
  });
}
