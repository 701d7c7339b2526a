/**
 * Step 4: the reply becomes the assistant message, and its tool calls the calls to run. A call the
 * model makes on the final, tool-less turn, or after the user cancelled, is not run and not kept.
 */
import type { ParsedCall } from '../../textmode/parser.js';
import type { Message } from '../../types.js';
import type { ReplyState } from '../context.js';

export interface Extracted {
  message: Message;
  calls: ParsedCall[];
  /** Calls dropped because the step limit was reached. */
  dropped: number;
}

export function extract(reply: ReplyState, options: { final: boolean; cancelled: boolean }): Extracted {
  let calls = reply.calls;
  let dropped = 0;
  if (calls.length > 0 && (options.final || options.cancelled)) {
    if (!options.cancelled) dropped = calls.length;
    calls = [];
  }
  const message: Message = {
    role: 'assistant',
    content: reply.text,
    ...(calls.length > 0 ? { toolCalls: calls.map(({ id, name, arguments: args }) => ({ id, name, arguments: args })) } : {}),
  };
  return { message, calls, dropped };
}
