/**
 * Step 3, the sideband: the model's stream is forked as it arrives. Visible text goes to the user
 * at once (the consumer's `text` events); the same stream is collected for the pipeline, which
 * looks for tool calls in it. In text mode the parser holds back anything that may be call markup,
 * so the user never sees it, and releases the rest immediately.
 */
import { isMcpError } from '../../errors.js';
import { createTextModeParser } from '../../textmode/parser.js';
import type { ReplyState } from '../context.js';
import type { ToolCallProcessor } from '../pipeline.js';

export const sideband: ToolCallProcessor = {
  name: 'sideband',
  async process(context) {
    const { settings } = context;
    const response = context.response;
    if (!response) throw new Error('sideband: no response to read');
    const parser = settings.mode === 'text' ? createTextModeParser() : undefined;
    const reply: ReplyState = { text: '', calls: [], finishReason: 'unknown' };
    const show = (text: string) => {
      if (!text) return;
      reply.text += text;
      settings.emit({ type: 'text', text });
    };
    try {
      for await (const event of response) {
        if (event.type === 'text') show(parser ? parser.push(event.text) : event.text);
        else if (event.type === 'tool_call') reply.calls.push(event.call);
        else {
          reply.finishReason = event.finishReason;
          reply.usage = event.usage;
        }
      }
    } catch (error) {
      // The first Ctrl-C aborts the model call: keep what was shown, end the run. Anything else is
      // a provider failure the user must see.
      if (!(isMcpError(error, 'CANCELLED') || context.current?.signal.aborted)) throw error;
      context.cancelled = true;
      reply.finishReason = 'unknown';
      settings.emit({ type: 'cancelled', during: 'model' });
    } finally {
      context.releaseCurrent?.();
      context.releaseCurrent = undefined;
      context.current = undefined;
    }
    if (parser) {
      show(parser.end());
      reply.calls.push(...parser.calls);
    }
    settings.emit({ type: 'reply_end', finishReason: reply.finishReason, usage: reply.usage });
    context.reply = reply;
    context.response = undefined;
    return context;
  },
};
