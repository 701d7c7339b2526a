import { defineTool, textResult } from '@mcpkit/protocol-core';
import type { ConformanceSession } from '../session.js';

const MESSAGES = ['Tool execution started', 'Tool processing data', 'Tool execution completed'] as const;

/**
 * Scenario `tools-call-with-logging`: three `info` log notifications, `stepMs` apart, on the call's own
 * stream. Messages below the level the client set with `logging/setLevel` are not sent.
 */
export const testToolWithLogging = defineTool({
  name: 'test_tool_with_logging',
  title: 'Tool With Logging',
  description: 'Tests tool that emits log messages during execution: three info messages about 50 ms apart',
  input: {},
  // Sends notifications to the caller only; changes nothing.
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: async (_args, session: ConformanceSession, extra) => {
    let sent = 0;
    for (const [i, message] of MESSAGES.entries()) {
      if (i > 0) await session.sleep(session.config.stepMs, extra.mcpReq.signal);
      if (await session.log('info', message, extra)) sent++;
    }
    return textResult(`Tool with logging executed successfully (${sent} of ${MESSAGES.length} log messages sent)`);
  },
});
