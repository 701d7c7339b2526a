/**
 * Step 7 (the seed's `RecursiveProcessor`): with the results in, the next round runs the pipeline
 * again. After `maxSteps` rounds the next call withholds the tools, so the user always gets an
 * answer; a cancelled run stops here.
 */
import type { ToolCallPipeline, ToolCallProcessor } from '../pipeline.js';

export function recurse(pipeline: ToolCallPipeline): ToolCallProcessor {
  return {
    name: 'recurse',
    async process(context) {
      if (context.cancelled) {
        context.done = true;
        return context;
      }
      context.step += 1;
      if (context.step >= context.settings.maxSteps) context.toolsEnabled = false;
      const next = await pipeline.execute(context);
      next.done = true;
      return next;
    },
  };
}
