import { defineTool, servesStatelessRequest, statelessSession, ToolError, textResult } from '@mcpkit/protocol-core';
import type { CurrentSession } from '../session.js';

export const toggleSimulatedLogging = defineTool({
  name: 'toggle-simulated-logging',
  title: 'Toggle Simulated Logging',
  description: 'Toggles simulated, random-leveled logging on or off.',
  input: {},
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  handler: (_args, { server, simulatedLogging }: CurrentSession, extra) => {
    // A --stateless request's server is gone once it answered: nothing would ever be sent.
    if (servesStatelessRequest(server)) throw new ToolError(statelessSession('simulated logging (its messages go to the session)'));
    // `session undefined` over stdio, as the reference prints it.
    const sessionId = extra.sessionId;
    if (simulatedLogging.active) {
      simulatedLogging.stop();
      return textResult(`Stopped simulated logging for session ${sessionId}`);
    }
    simulatedLogging.start();
    return textResult(
      `Started simulated, random-leveled logging for session ${sessionId} at a 5 second pace. Client's selected logging level will be respected. If an interval elapses and the message to be sent is below the selected level, it will not be sent. Thus at higher chosen logging levels, messages should arrive further apart. `,
    );
  },
});
