/**
 * Step 2: call the model. Native mode sends the tools as function definitions; text mode puts the
 * catalogue in the system prompt and the earlier calls and results back into plain messages. The
 * last call (after `maxSteps` rounds) offers no tools and tells the model to answer.
 */

import { toTextModeMessages } from '../../textmode/messages.js';
import type { ChatRequest, Message } from '../../types.js';
import { linkedAbort } from '../abort.js';
import type { ToolCallProcessor } from '../pipeline.js';

export function finalCallNote(maxSteps: number): Message {
  return {
    role: 'user',
    content: `[The tool-call limit of ${maxSteps} rounds is reached: no more tools can be called. Answer now with what you have.]`,
  };
}

export const conversationEntry: ToolCallProcessor = {
  name: 'conversationEntry',
  async process(context) {
    const { settings } = context;
    const messages: Message[] = context.toolsEnabled ? context.messages : [...context.messages, finalCallNote(settings.maxSteps)];
    const step = linkedAbort(context.signal);
    const current = step.controller;
    context.current = current;
    context.releaseCurrent = step.release;
    const request: ChatRequest =
      settings.mode === 'native'
        ? { messages, tools: context.tools, stream: settings.stream, signal: current.signal }
        : { messages: toTextModeMessages(messages, context.tools), stream: settings.stream, signal: current.signal };
    settings.emit({ type: 'model_call', step: context.step, final: !context.toolsEnabled });
    context.response = settings.llm.chat(request);
    return context;
  },
};
