import { defineTool, servesStatelessRequest, statelessSession, ToolError, textResult } from '@mcpkit/protocol-core';
import type { CurrentSession } from '../session.js';

export const toggleSubscriberUpdates = defineTool({
  name: 'toggle-subscriber-updates',
  title: 'Toggle Subscriber Updates',
  description: 'Toggles simulated resource subscription updates on or off.',
  input: {},
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  handler: (_args, { server, subscriberUpdates }: CurrentSession, extra) => {
    // A --stateless request's server is gone once it answered: nothing would ever be sent.
    if (servesStatelessRequest(server))
      throw new ToolError(statelessSession("simulated resource updates (they go to the session's subscriptions)"));
    const sessionId = extra.sessionId;
    if (subscriberUpdates.active) {
      subscriberUpdates.stop();
      return textResult(`Stopped simulated resource updates for session ${sessionId}`);
    }
    subscriberUpdates.start();
    // The reference's text, "the it is" included.
    return textResult(
      `Started simulated resource updated notifications for session ${sessionId} at a 5 second pace. Client will receive updates for any resources the it is subscribed to.`,
    );
  },
});
