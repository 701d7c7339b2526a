import { defineTool } from '@mcpkit/protocol-core';
import { z } from 'zod';
import { sleep } from '../../../shared/scheduler.js';
import type { LegacySession } from '../session.js';
import { objectSchema } from './objectSchema.js';

/**
 * Sleeps `duration / steps` seconds `steps` times and, when the call carries a progress token (string or
 * number), sends `notifications/progress { progress: i, total: steps, progressToken }` after each step.
 * Unlike the reference it stops when the client cancels the call or the session closes.
 */
export const longRunningOperation = defineTool({
  name: 'longRunningOperation',
  title: 'Long Running Operation',
  description: 'Demonstrates a long running operation with progress updates',
  input: { duration: z.number().default(10), steps: z.number().default(5) },
  listing: {
    inputSchema: objectSchema({
      duration: { type: 'number', default: 10, description: 'Duration of the operation in seconds' },
      steps: { type: 'number', default: 5, description: 'Number of steps in the operation' },
    }),
  },
  // Only waits and reports progress to the caller.
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async handler({ duration, steps }, session: LegacySession, extra) {
    const stepMs = (duration / steps) * 1000;
    const progressToken = extra.mcpReq._meta?.progressToken;
    const signal = AbortSignal.any([extra.mcpReq.signal, session.closed]);
    for (let i = 1; i < steps + 1; i++) {
      await sleep(session.config.scheduler, stepMs, signal);
      if (progressToken !== undefined) {
        await extra.mcpReq.notify({ method: 'notifications/progress', params: { progress: i, total: steps, progressToken } });
      }
    }
    return { content: [{ type: 'text', text: `Long running operation completed. Duration: ${duration} seconds, Steps: ${steps}.` }] };
  },
});
