/** Step 6: every call of the round gets its tool message, in the order the model made them. */
import type { Message } from '../../types.js';
import type { ToolCallProcessor } from '../pipeline.js';

export const formatResults: ToolCallProcessor = {
  name: 'formatResults',
  async process(context) {
    for (const outcome of context.outcomes) {
      const message: Message = {
        role: 'tool',
        toolCallId: outcome.call.id,
        name: outcome.call.name,
        content: outcome.text,
        ...(outcome.isError ? { isError: true } : {}),
      };
      context.messages.push(message);
      context.settings.emit({ type: 'message', message });
    }
    return context;
  },
};
