/**
 * Step 4: the reply becomes the assistant message, and its tool calls the calls to run. A call the
 * model makes on the final, tool-less turn, or after the user cancelled, is not run and not kept.
 */
import type { Message } from '../../types.js';
import type { ToolCallProcessor } from '../pipeline.js';

export const extract: ToolCallProcessor = {
  name: 'extract',
  async process(context) {
    const reply = context.reply;
    if (!reply) throw new Error('extract: no reply');
    let calls = reply.calls;
    if (calls.length > 0 && (!context.toolsEnabled || context.cancelled)) {
      if (!context.cancelled) {
        context.settings.emit({ type: 'notice', text: `the model asked for ${calls.length} tool call(s) after the step limit; not run` });
      }
      calls = [];
    }
    const message: Message = {
      role: 'assistant',
      content: reply.text,
      ...(calls.length > 0 ? { toolCalls: calls.map(({ id, name, arguments: args }) => ({ id, name, arguments: args })) } : {}),
    };
    context.messages.push(message);
    context.settings.emit({ type: 'message', message });
    context.toolCalls = calls;
    context.outcomes = [];
    if (calls.length === 0) context.done = true;
    return context;
  },
};
