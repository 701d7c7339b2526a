import { defineTool, textResult } from '@mcpkit/protocol-core';
import { z } from 'zod';
import { type CurrentSession, sleep } from '../session.js';

export const triggerLongRunningOperation = defineTool({
  name: 'trigger-long-running-operation',
  title: 'Trigger Long Running Operation Tool',
  description: 'Demonstrates a long running operation with progress updates.',
  input: {
    duration: z.number().default(10).describe('Duration of the operation in seconds'),
    steps: z.number().default(5).describe('Number of steps in the operation'),
  },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: async ({ duration, steps }, session: CurrentSession, extra) => {
    const stepMs = (duration / steps) * 1000;
    const progressToken = extra.mcpReq._meta?.progressToken;
    for (let i = 1; i < steps + 1; i++) {
      // Unlike the reference, a cancelled request (or a closed session) stops the operation.
      await sleep(session.config.scheduler, stepMs, extra.mcpReq.signal);
      if (progressToken !== undefined) {
        await extra.mcpReq.notify({ method: 'notifications/progress', params: { progress: i, total: steps, progressToken } });
      }
    }
    return textResult(`Long running operation completed. Duration: ${duration} seconds, Steps: ${steps}.`);
  },
});
