/**
 * Step 3, the sideband: the model's stream is forked as it arrives. Visible text goes to the user
 * at once (`text` events); the same stream is collected into the reply, where the loop looks for
 * tool calls. In text mode the parser holds back anything that may be call markup, so the user
 * never sees it, and releases the rest immediately.
 */
import { isMcpError } from '../../errors.js';
import { createTextModeParser } from '../../textmode/parser.js';
import type { ChatEvent } from '../../types.js';
import type { AgentEvent, ReplyState, RunControl, ToolMode } from '../context.js';

export async function* sideband(
  response: AsyncIterable<ChatEvent>,
  mode: ToolMode,
  control: RunControl,
  step: AbortController,
): AsyncGenerator<AgentEvent, ReplyState> {
  const parser = mode === 'text' ? createTextModeParser() : undefined;
  const reply: ReplyState = { text: '', calls: [], finishReason: 'unknown' };
  const show = (text: string): AgentEvent[] => {
    if (!text) return [];
    reply.text += text;
    return [{ type: 'text', text }];
  };
  try {
    for await (const event of response) {
      if (event.type === 'text') yield* show(parser ? parser.push(event.text) : event.text);
      else if (event.type === 'tool_call') reply.calls.push(event.call);
      else {
        reply.finishReason = event.finishReason;
        reply.usage = event.usage;
      }
    }
  } catch (error) {
    // The first Ctrl-C aborts the model call: keep what was shown, end the run. Anything else is
    // a provider failure the user must see.
    if (!(isMcpError(error, 'CANCELLED') || step.signal.aborted)) throw error;
    control.cancelled = true;
    reply.finishReason = 'unknown';
    yield { type: 'cancelled', during: 'model' };
  }
  if (parser) {
    yield* show(parser.end());
    reply.calls.push(...parser.calls);
  }
  yield { type: 'reply_end', finishReason: reply.finishReason, usage: reply.usage };
  return reply;
}
