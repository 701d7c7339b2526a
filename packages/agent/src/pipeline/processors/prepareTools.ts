/** Step 1: the tools offered this round, from the router's current list (none on the final call). */
import type { ToolCallContext } from '../context.js';
import type { ToolCallProcessor } from '../pipeline.js';

export const prepareTools: ToolCallProcessor = {
  name: 'prepareTools',
  async process(context) {
    context.tools = context.toolsEnabled
      ? context.settings.router
          .listTools()
          .map((tool) => ({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema }))
      : [];
    return context satisfies ToolCallContext;
  },
};
