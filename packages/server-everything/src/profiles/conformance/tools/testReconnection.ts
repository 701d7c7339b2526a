import { defineTool, textResult } from '@mcpkit/protocol-core';
import { closeRequestStream } from '@mcpkit/protocol-core/low-level';
import type { ConformanceSession } from '../session.js';

/**
 * Scenario `server-sse-polling` (SEP-1699): the tool ends its own response stream mid-call and finishes
 * anyway; the client gets the result by reconnecting with `GET` + `Last-Event-ID`, from the session's
 * event store. It first sends an `info` log message on the stream, so the client holds an event id to
 * resume from even when the SDK sent no priming event (requests whose `MCP-Protocol-Version` is older
 * than 2025-11-25, as the suite's is). Where the stream cannot be resumed (stdio, in-memory, stateless
 * HTTP, or the message was filtered by the client's log level) it is left open and the result comes on it.
 */
export const testReconnection = defineTool({
  name: 'test_reconnection',
  title: 'Reconnection (SEP-1699)',
  description:
    'Tests SSE stream disconnection and client reconnection (SEP-1699): closes the response stream mid-call; the result is replayed when the client reconnects with Last-Event-ID',
  input: {},
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: async (_args, session: ConformanceSession, extra) => {
    const announced = await session.log(
      'info',
      'test_reconnection: this response stream may close now; if it does, reconnect with Last-Event-ID to get the result',
      extra,
    );
    const closed = closeRequestStream(session.server, extra, { eventSent: announced });
    await session.sleep(session.config.reconnectionWorkMs, extra.mcpReq.signal);
    return textResult(
      closed
        ? 'Reconnection test completed successfully: the response stream was closed mid-call and this result was delivered after the client reconnected.'
        : 'Reconnection test completed without closing the stream: this connection cannot resume a closed stream (no event store or no event id to resume from), so the result came on the original stream.',
    );
  },
});
