/**
 * Step 2: the model request. Native mode sends the tools as function definitions; text mode puts
 * the catalogue in the system prompt and the earlier calls and results back into plain messages.
 * The last call (after `maxSteps` rounds) offers no tools and tells the model to answer.
 */
import { toTextModeMessages } from '../../textmode/messages.js';
import type { ChatRequest, Message, ToolSpec } from '../../types.js';
import type { PipelineSettings } from '../context.js';

function finalCallNote(maxSteps: number): Message {
  return {
    role: 'user',
    content: `[The tool-call limit of ${maxSteps} rounds is reached: no more tools can be called. Answer now with what you have.]`,
  };
}

export function conversationEntry(
  settings: PipelineSettings,
  history: readonly Message[],
  tools: ToolSpec[],
  final: boolean,
  signal: AbortSignal,
): ChatRequest {
  const messages: readonly Message[] = final ? [...history, finalCallNote(settings.maxSteps)] : history;
  return settings.mode === 'native'
    ? { messages, tools, stream: settings.stream, signal }
    : { messages: toTextModeMessages(messages, tools), stream: settings.stream, signal };
}
