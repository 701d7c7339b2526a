import { defineTool, textResult } from '@mcpkit/protocol-core';
import type { ConformanceSession } from '../session.js';

const STEPS = [0, 50, 100] as const;
const TOTAL = 100;

/**
 * Scenario `tools-call-with-progress`: `notifications/progress` 0, 50 and 100 of 100, `stepMs` apart, when
 * the request carries `_meta.progressToken`; the same delays without notifications otherwise.
 */
export const testToolWithProgress = defineTool({
  name: 'test_tool_with_progress',
  title: 'Tool With Progress',
  description:
    'Tests tool that reports progress notifications: 0, 50 and 100 of 100, about 50 ms apart, if the request has a progress token',
  input: {},
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: async (_args, session: ConformanceSession, extra) => {
    const progressToken = extra.mcpReq._meta?.progressToken;
    for (const [i, progress] of STEPS.entries()) {
      if (i > 0) await session.sleep(session.config.stepMs, extra.mcpReq.signal);
      if (progressToken === undefined) continue;
      await extra.mcpReq.notify({
        method: 'notifications/progress',
        params: { progressToken, progress, total: TOTAL, message: `Completed step ${progress} of ${TOTAL}` },
      });
    }
    return textResult(
      progressToken === undefined
        ? 'Tool with progress executed successfully (no progress token in the request, so no progress notifications)'
        : `Tool with progress executed successfully (progress ${STEPS.join(', ')} of ${TOTAL} reported for token ${JSON.stringify(progressToken)})`,
    );
  },
});
